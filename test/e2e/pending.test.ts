import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { encodeFunctionData, keccak256, parseEther, parseGwei } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { ZERO_WORD, deploy, startChain, toHex, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
let store: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [5n])).address
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

const max = (a: bigint, b: bigint) => (a > b ? a : b)

/** Waits (bounded) until the server has admitted a transaction sent by a request still in flight. */
async function untilKnown(hash: Hex): Promise<void> {
  for (let attempt = 0; attempt < 4_000; attempt++) {
    if ((await t.rpc('eth_getTransactionByHash', [hash])) !== null) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`transaction ${hash} never reached the pool`)
}

describe('pending-aware state reads', () => {
  it('eth_getBalance sees a pre-confirmed transfer with pending only, and with latest after the seal', async () => {
    const recipient = '0x00000000000000000000000000000000000b0b0b'
    const sender = t.accounts[4]!.address
    const senderBefore = await t.publicClient.getBalance({ address: sender })
    const hash = await t.wallet(4).sendTransaction({ to: recipient, value: parseEther('1.5') })

    // Queued in the pool only: not part of the pending state yet.
    expect(await t.rpc('eth_getBalance', [recipient, 'pending'])).toBe('0x0')

    await t.preconfirm()
    expect(await t.rpc('eth_getBalance', [recipient, 'pending'])).toBe(toHex(parseEther('1.5')))
    expect(await t.rpc('eth_getBalance', [recipient, 'latest'])).toBe('0x0')
    expect(await t.rpc('eth_getBalance', [recipient])).toBe('0x0')
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    const cost = parseEther('1.5') + receipt.gasUsed * receipt.effectiveGasPrice
    expect(await t.publicClient.getBalance({ address: sender, blockTag: 'pending' })).toBe(senderBefore - cost)
    expect(await t.publicClient.getBalance({ address: sender, blockTag: 'latest' })).toBe(senderBefore)

    await t.mine()
    expect(await t.rpc('eth_getBalance', [recipient, 'latest'])).toBe(toHex(parseEther('1.5')))
    expect(await t.publicClient.getBalance({ address: sender })).toBe(senderBefore - cost)
  })

  it('eth_getTransactionCount with pending counts queued pool transactions; latest counts pre-confirmed ones', async () => {
    const sender = t.accounts[5]!
    const latest = await t.publicClient.getTransactionCount({ address: sender.address, blockTag: 'latest' })
    await t.wallet(5).sendTransaction({ to: t.accounts[6]!.address, value: 1n, nonce: latest })
    await t.wallet(5).sendTransaction({ to: t.accounts[6]!.address, value: 2n, nonce: latest + 1 })

    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'pending'])).toBe(toHex(latest + 2))
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'latest'])).toBe(toHex(latest))
    expect(await t.rpc('eth_getTransactionCount', [sender.address])).toBe(toHex(latest))

    // A transaction after a nonce gap is not executable and does not move the pending nonce.
    await t.wallet(5).sendTransaction({ to: t.accounts[6]!.address, value: 3n, nonce: latest + 3 })
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'pending'])).toBe(toHex(latest + 2))

    const flashblock = await t.preconfirm()
    expect(flashblock.transactions).toHaveLength(2)
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'pending'])).toBe(toHex(latest + 2))
    // Pre-confirmed nonces are spent: a client filling its next nonce from latest must not reuse them.
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'latest'])).toBe(toHex(latest + 2))
    expect(await t.rpc('eth_getTransactionCount', [sender.address])).toBe(toHex(latest + 2))
    // A block number names that block's state alone.
    const head = await t.rpc<Hex>('eth_blockNumber', [])
    expect(await t.rpc('eth_getTransactionCount', [sender.address, head])).toBe(toHex(latest))

    await t.mine()
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'latest'])).toBe(toHex(latest + 2))
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'pending'])).toBe(toHex(latest + 2))

    // Filling the gap makes both queued transactions executable.
    await t.wallet(5).sendTransaction({ to: t.accounts[6]!.address, value: 4n, nonce: latest + 2 })
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'pending'])).toBe(toHex(latest + 4))
    await t.mine()
    expect(await t.rpc('eth_getTransactionCount', [sender.address, 'latest'])).toBe(toHex(latest + 4))
  })

  it('eth_getStorageAt and eth_call see a pre-confirmed write with pending only, and with latest after the seal', async () => {
    const hash = await t.wallet(0).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [7n] })
    const value = encodeFunctionData({ abi: Store.abi, functionName: 'value' })

    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'pending'])).toBe(word(5n))
    await t.preconfirm()
    expect((await t.publicClient.getTransactionReceipt({ hash })).status).toBe('success')

    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'pending'])).toBe(word(7n))
    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(5n))
    expect(await t.rpc('eth_getStorageAt', [store, '0x0'])).toBe(word(5n))
    expect(await t.rpc('eth_getStorageAt', [store, '0x1', 'pending'])).toBe(ZERO_WORD)

    expect(await t.rpc('eth_call', [{ to: store, data: value }, 'pending'])).toBe(word(7n))
    expect(await t.rpc('eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(5n))
    expect(await t.publicClient.readContract({ address: store, abi: Store.abi, functionName: 'value', blockTag: 'pending' })).toBe(7n)
    expect(await t.publicClient.readContract({ address: store, abi: Store.abi, functionName: 'value' })).toBe(5n)

    await t.mine()
    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(7n))
    expect(await t.rpc('eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(7n))
    expect(await t.rpc('eth_call', [{ to: store, data: value }])).toBe(word(7n))
  })

  it('eth_call with pending runs in the environment of block latest + 1, the one the seal then uses', async () => {
    // Init code run by a call without `to`; it returns five words:
    //   NUMBER PUSH0 MSTORE  TIMESTAMP PUSH1 0x20 MSTORE  BASEFEE PUSH1 0x40 MSTORE  PREVRANDAO PUSH1 0x60 MSTORE
    //   COINBASE PUSH1 0x80 MSTORE  PUSH1 0xa0 PUSH0 RETURN
    const envCode: Hex = '0x435f524260205248604052446060524160805260a05ff3'
    const words = (result: Hex) => Array.from({ length: 5 }, (_, i) => BigInt(`0x${result.slice(2 + 64 * i, 66 + 64 * i)}`))
    const latest = await t.publicClient.getBlock({ blockTag: 'latest' })
    // The first flashblock fixes the environment of the block being built.
    await t.preconfirm()
    const pending = await t.rpc<{ number: Hex; timestamp: Hex; baseFeePerGas: Hex; mixHash: Hex; miner: Hex; parentHash: Hex }>(
      'eth_getBlockByNumber',
      ['pending', false],
    )
    expect(pending.number).toBe(toHex(latest.number + 1n))
    expect(pending.parentHash).toBe(latest.hash)
    expect(BigInt(pending.timestamp)).toBeGreaterThan(latest.timestamp)
    // EIP-1559: the base fee of the child of `latest`.
    const target = latest.gasLimit / 2n
    const expectedBaseFee =
      latest.gasUsed === target
        ? latest.baseFeePerGas!
        : latest.gasUsed > target
          ? latest.baseFeePerGas! + max(1n, (latest.baseFeePerGas! * (latest.gasUsed - target)) / target / 8n)
          : latest.baseFeePerGas! - (latest.baseFeePerGas! * (target - latest.gasUsed)) / target / 8n
    expect(pending.baseFeePerGas).toBe(toHex(expectedBaseFee))

    // A priced call sees the block's base fee (an unpriced one runs with base fee 0, as in geth).
    const priced = { from: t.accounts[0]!.address, data: envCode, maxFeePerGas: toHex(parseGwei('100')), maxPriorityFeePerGas: '0x0' }
    const [number, timestamp, baseFee, prevRandao, coinbase] = words(await t.rpc<Hex>('eth_call', [priced, 'pending']))
    expect(number).toBe(latest.number + 1n)
    expect(timestamp).toBe(BigInt(pending.timestamp))
    expect(baseFee).toBe(BigInt(pending.baseFeePerGas))
    expect(prevRandao).toBe(BigInt(pending.mixHash))
    expect(coinbase).toBe(BigInt(pending.miner))

    const atLatest = words(await t.rpc<Hex>('eth_call', [priced, 'latest']))
    expect(atLatest[0]).toBe(latest.number)
    expect(atLatest[1]).toBe(latest.timestamp)
    expect(atLatest[2]).toBe(latest.baseFeePerGas)

    await t.mine()
    const sealed = await t.publicClient.getBlock({ blockNumber: latest.number + 1n })
    expect(sealed.timestamp).toBe(timestamp)
    expect(sealed.baseFeePerGas).toBe(baseFee)
    expect(BigInt(sealed.mixHash)).toBe(prevRandao)
    expect(BigInt(sealed.miner)).toBe(coinbase)
  })
})

describe('the pending block and pre-confirmed transactions', () => {
  it('eth_getBlockByNumber("pending") has number latest + 1 and holds the pre-confirmed transactions only', async () => {
    const latest = await t.blockNumber()
    const first = await t.wallet(1).sendTransaction({ to: t.accounts[2]!.address, value: 10n })
    await t.preconfirm()
    const queued = await t.wallet(1).sendTransaction({ to: t.accounts[2]!.address, value: 11n })

    const pending = await t.rpc<{ number: Hex; transactions: Hex[]; parentHash: Hex }>('eth_getBlockByNumber', ['pending', false])
    expect(pending.number).toBe(toHex(latest + 1n))
    expect(pending.transactions).toEqual([first])
    expect(pending.transactions).not.toContain(queued)
    const head = await t.publicClient.getBlock({ blockTag: 'latest' })
    expect(pending.parentHash).toBe(head.hash)

    await t.preconfirm()
    const full = await t.rpc<{ number: Hex; transactions: { hash: Hex; blockNumber: Hex; transactionIndex: Hex }[] }>('eth_getBlockByNumber', [
      'pending',
      true,
    ])
    expect(full.transactions.map((tx) => tx.hash)).toEqual([first, queued])
    expect(full.transactions.map((tx) => tx.blockNumber)).toEqual([toHex(latest + 1n), toHex(latest + 1n)])
    expect(full.transactions.map((tx) => tx.transactionIndex)).toEqual(['0x0', '0x1'])
    expect(await t.rpc('eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x2')

    await t.mine()
    const sealed = await t.publicClient.getBlock({ blockNumber: latest + 1n })
    expect(sealed.transactions).toEqual([first, queued])
    const next = await t.rpc<{ number: Hex; transactions: Hex[] }>('eth_getBlockByNumber', ['pending', false])
    expect(next.number).toBe(toHex(latest + 2n))
    expect(next.transactions).toEqual([])
  })

  it('finds a pre-confirmed transaction and its receipt by hash before the seal, and with the sealed block hash after', async () => {
    const latest = await t.blockNumber()
    const hash = await t.wallet(0).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [8n] })

    // Queued only: the transaction is known, it has no receipt yet.
    const queued = await t.publicClient.getTransaction({ hash })
    expect(queued.blockNumber).toBeNull()
    expect(queued.blockHash).toBeNull()
    expect(await t.rpc('eth_getTransactionReceipt', [hash])).toBeNull()

    await t.preconfirm()
    const transaction = await t.publicClient.getTransaction({ hash })
    expect(transaction.hash).toBe(hash)
    expect(transaction.blockNumber).toBe(latest + 1n)
    expect(transaction.transactionIndex).toBe(0)
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.blockNumber).toBe(latest + 1n)
    expect(receipt.transactionIndex).toBe(0)
    expect(receipt.from).toBe(t.accounts[0]!.address.toLowerCase())
    expect(receipt.to).toBe(store)
    expect(receipt.logs).toHaveLength(1)
    expect(receipt.logs[0]!.address).toBe(store)
    expect(receipt.logs[0]!.blockNumber).toBe(latest + 1n)
    expect(receipt.logs[0]!.topics[1]).toBe(word(8n))

    await t.mine()
    const block = await t.publicClient.getBlock({ blockNumber: latest + 1n })
    const sealedReceipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(sealedReceipt.blockHash).toBe(block.hash)
    expect(sealedReceipt.blockNumber).toBe(latest + 1n)
    expect(sealedReceipt.gasUsed).toBe(receipt.gasUsed)
    expect(sealedReceipt.cumulativeGasUsed).toBe(receipt.cumulativeGasUsed)
    expect(sealedReceipt.logs[0]!.blockHash).toBe(block.hash)
    expect((await t.publicClient.getTransaction({ hash })).blockHash).toBe(block.hash)
  })

  it("receipts of transactions pre-confirmed in successive flashblocks continue the block's indexes and gas", async () => {
    const latest = await t.blockNumber()
    const first = await t.wallet(0).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [20n] })
    const one = await t.preconfirm()
    const second = await t.wallet(1).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [21n] })
    const two = await t.preconfirm()
    expect(one.transactions).toEqual([first])
    expect(two.transactions).toEqual([first, second])
    expect(two.flashblockIndex).toBe(one.flashblockIndex + 1)

    const a = await t.publicClient.getTransactionReceipt({ hash: first })
    const b = await t.publicClient.getTransactionReceipt({ hash: second })
    expect([a.transactionIndex, b.transactionIndex]).toEqual([0, 1])
    expect(a.cumulativeGasUsed).toBe(a.gasUsed)
    expect(b.cumulativeGasUsed).toBe(a.gasUsed + b.gasUsed)
    expect(a.logs.map((log) => log.logIndex)).toEqual([0])
    expect(b.logs.map((log) => log.logIndex)).toEqual([1])

    // eth_getLogs up to pending includes the pre-confirmed logs; up to latest it does not.
    const topics = [null, word(21n)]
    expect(await t.rpc('eth_getLogs', [{ fromBlock: 'latest', toBlock: 'latest', address: store, topics }])).toEqual([])
    const pendingLogs = await t.rpc<{ transactionHash: Hex; blockNumber: Hex; logIndex: Hex }[]>('eth_getLogs', [
      { fromBlock: 'latest', toBlock: 'pending', address: store, topics },
    ])
    expect(pendingLogs.map((log) => [log.transactionHash, log.blockNumber, log.logIndex])).toEqual([[second, toHex(latest + 1n), '0x1']])

    await t.mine()
    const block = await t.publicClient.getBlock({ blockNumber: latest + 1n })
    expect(block.gasUsed).toBe(a.gasUsed + b.gasUsed)
    const sealedB = await t.publicClient.getTransactionReceipt({ hash: second })
    expect(sealedB.cumulativeGasUsed).toBe(b.cumulativeGasUsed)
    expect(sealedB.logs[0]!.logIndex).toBe(1)
  })

  it('viem waitForTransactionReceipt resolves with the pre-confirmed receipt', async () => {
    const latest = await t.blockNumber()
    const hash = await t.wallet(3).sendTransaction({ to: t.accounts[4]!.address, value: 1n })
    await t.preconfirm()
    const receipt = await t.publicClient.waitForTransactionReceipt({ hash, timeout: 5_000 })
    expect(receipt.transactionHash).toBe(hash)
    expect(receipt.status).toBe('success')
    expect(receipt.blockNumber).toBe(latest + 1n)
    await t.mine()
  })

  it('viem waitForTransactionReceipt started before the seal resolves after evm_mine', async () => {
    const latest = await t.blockNumber()
    const hash = await t.wallet(3).sendTransaction({ to: t.accounts[4]!.address, value: 2n })
    const waiting = t.publicClient.waitForTransactionReceipt({ hash, timeout: 5_000 })
    await t.mine()
    const receipt = await waiting
    expect(receipt.status).toBe('success')
    expect(receipt.blockNumber).toBe(latest + 1n)
    expect(receipt.blockHash).toBe((await t.publicClient.getBlock({ blockNumber: latest + 1n })).hash)
  })
})

describe('eth_sendRawTransactionSync (EIP-7966)', () => {
  async function signTransfer(value: bigint): Promise<Hex> {
    const wallet = t.wallet(7)
    const request = await wallet.prepareTransactionRequest({ to: t.accounts[8]!.address, value })
    return wallet.signTransaction(request as never)
  }

  it('answers with the receipt once a concurrent flashchain_preconfirm pre-confirms the transaction', async () => {
    const latest = await t.blockNumber()
    const raw = await signTransfer(100n)
    const hash = keccak256(raw)
    const sync = t.send('eth_sendRawTransactionSync', [raw, 10_000])
    await untilKnown(hash)
    const flashblock = await t.preconfirm()
    expect(flashblock.transactions).toEqual([hash])

    const response = await sync
    expect(response.error).toBeUndefined()
    const receipt = response.result as { transactionHash: Hex; status: Hex; blockNumber: Hex; from: Hex; to: Hex; gasUsed: Hex }
    expect(receipt.transactionHash).toBe(hash)
    expect(receipt.status).toBe('0x1')
    expect(receipt.blockNumber).toBe(toHex(latest + 1n))
    expect(receipt.from).toBe(t.accounts[7]!.address.toLowerCase())
    expect(receipt.to).toBe(t.accounts[8]!.address.toLowerCase())
    expect(receipt.gasUsed).toBe('0x5208')
    await t.mine()
  })

  it('answers error 4 with the hash in data when nothing pre-confirms it in time (manual mining)', async () => {
    const raw = await signTransfer(101n)
    const hash = keccak256(raw)
    expect(await t.rpcError('eth_sendRawTransactionSync', [raw, 100])).toEqual({
      code: 4,
      message: "The transaction was added to the transaction pool but wasn't processed in 100ms",
      data: hash,
    })
    // It stays in the pool and is pre-confirmed by the next flashblock.
    expect((await t.preconfirm()).transactions).toEqual([hash])
    await t.mine()
  })

  it('rejects an invalid transaction at once, as eth_sendRawTransaction does', async () => {
    const wallet = t.wallet(7)
    const request = await wallet.prepareTransactionRequest({ to: t.accounts[8]!.address, value: 1n, gas: 20_000n, maxFeePerGas: parseGwei('10') })
    const raw = await wallet.signTransaction(request as never)
    const error = await t.rpcError('eth_sendRawTransactionSync', [raw])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^intrinsic gas too low/)
  })
})

describe('--default-block-tag', () => {
  it('pending: reads that name no block see a pre-confirmed deployment; latest: they do not', async () => {
    const latestByDefault = t
    const pendingByDefault = await startChain({ defaultBlockTag: 'pending' })
    try {
      for (const chain of [latestByDefault, pendingByDefault]) {
        const { address: deployed } = await deploy(chain, Store, [9n])
        await chain.preconfirm()
        const read = { to: deployed, data: encodeFunctionData({ abi: Store.abi, functionName: 'value' }) }
        const write = {
          from: chain.accounts[0]!.address,
          to: deployed,
          data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [3n] }),
        }
        const code = await chain.rpc<Hex>('eth_getCode', [deployed, 'pending'])
        expect(code.length).toBeGreaterThan(2)
        if (chain === pendingByDefault) {
          expect(await chain.rpc('eth_getCode', [deployed])).toBe(code)
          expect(await chain.rpc('eth_call', [read])).toBe(word(9n))
          expect(await chain.rpc('eth_estimateGas', [write])).toBe(await chain.rpc('eth_estimateGas', [write, 'pending']))
          expect(await chain.rpc('eth_getStorageAt', [deployed, '0x0'])).toBe(word(9n))
        } else {
          expect(await chain.rpc('eth_getCode', [deployed])).toBe('0x')
          expect(await chain.rpc('eth_call', [read])).toBe('0x')
          // At latest the contract is not there: the estimate is a plain call's, below what the write needs.
          expect(BigInt(await chain.rpc<Hex>('eth_estimateGas', [write]))).toBeLessThan(
            BigInt(await chain.rpc<Hex>('eth_estimateGas', [write, 'pending'])),
          )
          expect(await chain.rpc('eth_getStorageAt', [deployed, '0x0'])).toBe(ZERO_WORD)
        }
        // A block named outright is read as named.
        expect(await chain.rpc('eth_getCode', [deployed, 'latest'])).toBe('0x')
        await chain.mine()
      }
    } finally {
      await pendingByDefault.close()
    }
  })
})
