import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import {
  BaseError,
  InsufficientFundsError,
  createWalletClient,
  http,
  IntrinsicGasTooLowError,
  NonceTooLowError,
  encodeEventTopics,
  keccak256,
  parseEther,
  parseGwei,
  toEventSelector,
} from 'viem'

import { Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex, word } from './helpers.ts'

import type { Hex, TransactionSerializable } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/

/** The accounts of the standard test mnemonic, as anvil and Hardhat list them. */
const DEV_ACCOUNTS = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
  '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
  '0x976ea74026e726554db657fa54763abd0c3a0aa9',
  '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
  '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
  '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
]

type RpcBlock = {
  number: Hex
  hash: Hex
  parentHash: Hex
  gasUsed: Hex
  timestamp: Hex
  transactions: (Hex | { hash: Hex; from: Hex; to: Hex | null; blockHash: Hex; blockNumber: Hex; transactionIndex: Hex; nonce: Hex; value: Hex })[]
}

/** Signs a transaction from dev account `index` without asking the server for anything. */
function sign(index: number, fields: Partial<TransactionSerializable> & { nonce: number }): Promise<Hex> {
  return t.accounts[index]!.signTransaction({
    type: 'eip1559',
    chainId: 31337,
    to: t.accounts[9]!.address,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
    ...fields,
  } as TransactionSerializable)
}

describe('identity of the chain', () => {
  it('eth_chainId is 0x7a69 and net_version is "31337"', async () => {
    expect(await t.rpc('eth_chainId')).toBe('0x7a69')
    expect(await t.rpc('net_version')).toBe('31337')
    expect(await t.publicClient.getChainId()).toBe(31337)
  })

  it('eth_accounts lists the 10 dev accounts of the test mnemonic in order', async () => {
    const accounts = await t.rpc<Hex[]>('eth_accounts')
    expect(accounts.map((account) => account.toLowerCase())).toEqual(DEV_ACCOUNTS)
    expect(t.accounts.map((account) => account.address.toLowerCase())).toEqual(DEV_ACCOUNTS)
  })

  it('dev accounts start with 10000 ETH', async () => {
    expect(await t.publicClient.getBalance({ address: DEV_ACCOUNTS[9] as Hex, blockTag: 'earliest' })).toBe(parseEther('10000'))
  })

  it('eth_blockNumber increments by one per evm_mine, and not on flashchain_preconfirm', async () => {
    const start = await t.blockNumber()
    await t.preconfirm()
    expect(await t.blockNumber()).toBe(start)
    await t.rpc('evm_mine')
    expect(await t.rpc('eth_blockNumber')).toBe(toHex(start + 1n))
    await t.rpc('evm_mine')
    expect(await t.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(start + 2n)
  })
})

describe('viem contract flow', () => {
  it('deployContract, readContract and writeContract work against pending and sealed state', async () => {
    const wallet = t.wallet(0)
    const hash = await wallet.deployContract({ abi: Store.abi, bytecode: Store.bytecode, args: [11n] })
    await t.preconfirm()
    const deployed = await t.publicClient.waitForTransactionReceipt({ hash, timeout: 5_000 })
    expect(deployed.status).toBe('success')
    const address = deployed.contractAddress!
    expect(await t.publicClient.readContract({ address, abi: Store.abi, functionName: 'value', blockTag: 'pending' })).toBe(11n)
    await t.mine()
    expect(await t.publicClient.readContract({ address, abi: Store.abi, functionName: 'value' })).toBe(11n)

    const { request } = await t.publicClient.simulateContract({
      account: t.accounts[0]!,
      address,
      abi: Store.abi,
      functionName: 'set',
      args: [12n],
    })
    const write = await wallet.writeContract(request)
    await t.mine()
    const receipt = await t.publicClient.waitForTransactionReceipt({ hash: write, timeout: 5_000 })
    expect(receipt.status).toBe('success')
    expect(await t.publicClient.readContract({ address, abi: Store.abi, functionName: 'value' })).toBe(12n)
    const events = await t.publicClient.getContractEvents({ address, abi: Store.abi, eventName: 'ValueSet', fromBlock: 0n })
    expect(events.map((event) => event.args.value)).toEqual([11n, 12n])
  })
})

describe('eth_sendTransaction', () => {
  it('signs with an unlocked dev account, filling nonce, gas and fees', async () => {
    // A JSON-RPC account: viem leaves the signing to the node.
    const wallet = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: DEV_ACCOUNTS[1] as Hex })
    const nonce = await t.publicClient.getTransactionCount({ address: DEV_ACCOUNTS[1] as Hex, blockTag: 'pending' })
    const hash = await wallet.sendTransaction({ to: t.accounts[2]!.address, value: 1234n })
    await t.preconfirm()
    const receipt = await t.publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(DEV_ACCOUNTS[1])
    const transaction = await t.publicClient.getTransaction({ hash })
    expect(transaction.nonce).toBe(nonce)
    expect(transaction.value).toBe(1234n)
    expect(transaction.gas).toBe(21_000n)
    expect(transaction.type).toBe('eip1559')
    await t.mine()
  })
})

describe('blocks', () => {
  let sealedNumber: bigint
  let hashes: Hex[]

  beforeAll(async () => {
    hashes = [
      await t.wallet(1).sendTransaction({ to: t.accounts[2]!.address, value: 5n }),
      await t.wallet(1).sendTransaction({ to: t.accounts[2]!.address, value: 6n }),
    ]
    sealedNumber = await t.mine()
  })

  it('eth_getBlockByNumber returns hashes, or full transactions with their position', async () => {
    const block = await t.rpc<RpcBlock>('eth_getBlockByNumber', [toHex(sealedNumber), false])
    expect(block.number).toBe(toHex(sealedNumber))
    expect(block.transactions).toEqual(hashes)
    expect(BigInt(block.gasUsed)).toBe(42_000n)

    const full = await t.rpc<RpcBlock>('eth_getBlockByNumber', [toHex(sealedNumber), true])
    expect(full.hash).toBe(block.hash)
    const transactions = full.transactions as Exclude<RpcBlock['transactions'][number], Hex>[]
    expect(transactions.map((tx) => tx.hash)).toEqual(hashes)
    expect(transactions.map((tx) => tx.blockHash)).toEqual([block.hash, block.hash])
    expect(transactions.map((tx) => tx.blockNumber)).toEqual([toHex(sealedNumber), toHex(sealedNumber)])
    expect(transactions.map((tx) => tx.transactionIndex)).toEqual(['0x0', '0x1'])
    expect(transactions.map((tx) => tx.from)).toEqual([DEV_ACCOUNTS[1], DEV_ACCOUNTS[1]])
    expect(transactions.map((tx) => tx.value)).toEqual(['0x5', '0x6'])

    expect(await t.rpc<RpcBlock>('eth_getBlockByNumber', ['latest', false])).toEqual(block)
  })

  it('eth_getBlockByHash returns the same block, hash-only and full', async () => {
    const byNumber = await t.rpc<RpcBlock>('eth_getBlockByNumber', [toHex(sealedNumber), false])
    expect(await t.rpc('eth_getBlockByHash', [byNumber.hash, false])).toEqual(byNumber)
    expect(await t.rpc('eth_getBlockByHash', [byNumber.hash, true])).toEqual(await t.rpc('eth_getBlockByNumber', [toHex(sealedNumber), true]))
    const parent = await t.rpc<RpcBlock>('eth_getBlockByHash', [byNumber.parentHash, false])
    expect(parent.number).toBe(toHex(sealedNumber - 1n))
    const viemBlock = await t.publicClient.getBlock({ blockHash: byNumber.hash, includeTransactions: true })
    expect(viemBlock.number).toBe(sealedNumber)
    expect(viemBlock.transactions.map((tx) => tx.hash)).toEqual(hashes)
  })

  it('unknown blocks are null', async () => {
    expect(await t.rpc('eth_getBlockByNumber', ['0xfffff', false])).toBeNull()
    expect(await t.rpc('eth_getBlockByHash', [`0x${'12'.repeat(32)}`, false])).toBeNull()
    expect(await t.rpc('eth_getBlockTransactionCountByHash', [`0x${'12'.repeat(32)}`])).toBeNull()
    expect(await t.rpc('eth_getBlockTransactionCountByNumber', ['0xfffff'])).toBeNull()
  })

  it('eth_getBlockTransactionCountByNumber and ByHash count the transactions', async () => {
    const block = await t.rpc<RpcBlock>('eth_getBlockByNumber', [toHex(sealedNumber), false])
    expect(await t.rpc('eth_getBlockTransactionCountByNumber', [toHex(sealedNumber)])).toBe('0x2')
    expect(await t.rpc('eth_getBlockTransactionCountByNumber', ['latest'])).toBe('0x2')
    expect(await t.rpc('eth_getBlockTransactionCountByHash', [block.hash])).toBe('0x2')
    expect(await t.rpc('eth_getBlockTransactionCountByNumber', ['earliest'])).toBe('0x0')
    expect(await t.rpc('eth_getBlockTransactionCountByHash', [block.parentHash])).toBe(
      toHex((await t.publicClient.getBlock({ blockHash: block.parentHash })).transactions.length),
    )
  })

  it('eth_feeHistory returns one entry per block, the next base fee, and rewards per percentile', async () => {
    const head = await t.blockNumber()
    const history = await t.rpc<{
      oldestBlock: Hex
      baseFeePerGas: Hex[]
      gasUsedRatio: number[]
      reward: Hex[][]
    }>('eth_feeHistory', ['0x3', 'latest', [25, 75]])
    expect(history.oldestBlock).toBe(toHex(head - 2n))
    expect(history.baseFeePerGas).toHaveLength(4)
    for (const fee of history.baseFeePerGas) expect(fee).toMatch(QUANTITY)
    expect(history.gasUsedRatio).toHaveLength(3)
    for (const ratio of history.gasUsedRatio) {
      expect(ratio).toBeGreaterThanOrEqual(0)
      expect(ratio).toBeLessThanOrEqual(1)
    }
    expect(history.reward).toHaveLength(3)
    for (const rewards of history.reward) {
      expect(rewards).toHaveLength(2)
      for (const reward of rewards) expect(reward).toMatch(QUANTITY)
    }
    // The block with the two transfers: 42,000 of 30,000,000 gas, each paying a 1 gwei tip.
    expect(history.gasUsedRatio[2]).toBeCloseTo(42_000 / 30_000_000, 10)
    expect(history.reward[2]).toEqual(['0x3b9aca00', '0x3b9aca00'])
    // The base fee of each block matches its header.
    const last = await t.publicClient.getBlock({ blockNumber: head })
    expect(history.baseFeePerGas[2]).toBe(toHex(last.baseFeePerGas!))

    const viemHistory = await t.publicClient.getFeeHistory({ blockCount: 2, rewardPercentiles: [50] })
    expect(viemHistory.oldestBlock).toBe(head - 1n)
  })

  it('eth_gasPrice and eth_maxPriorityFeePerGas return quantities; the gas price covers the pending base fee', async () => {
    const gasPrice = await t.rpc<Hex>('eth_gasPrice')
    const tip = await t.rpc<Hex>('eth_maxPriorityFeePerGas')
    expect(gasPrice).toMatch(QUANTITY)
    expect(tip).toMatch(QUANTITY)
    const pending = await t.rpc<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', ['pending', false])
    expect(BigInt(gasPrice)).toBeGreaterThanOrEqual(BigInt(pending.baseFeePerGas))
    expect(BigInt(tip)).toBeGreaterThan(0n)
    const fees = await t.publicClient.estimateFeesPerGas()
    expect(fees.maxFeePerGas).toBeGreaterThan(fees.maxPriorityFeePerGas)
  })
})

describe('eth_getLogs', () => {
  let store: Hex
  let setIn: bigint

  beforeAll(async () => {
    store = (await deploy(t, Store, [100n])).address
    await t.mine()
    await t.wallet(0).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [101n] })
    setIn = await t.mine()
  })

  it('finds an emitted event by address and topics', async () => {
    const topic0 = toEventSelector('ValueSet(uint256,address)')
    const logs = await t.rpc<{ address: Hex; topics: Hex[]; blockNumber: Hex; logIndex: Hex; removed: boolean }[]>('eth_getLogs', [
      { fromBlock: '0x0', toBlock: 'latest', address: store, topics: [topic0, word(101n)] },
    ])
    expect(logs).toHaveLength(1)
    expect(logs[0]!.address).toBe(store)
    expect(logs[0]!.topics).toEqual(encodeEventTopics({ abi: Store.abi, eventName: 'ValueSet', args: { value: 101n, by: t.accounts[0]!.address } }))
    expect(logs[0]!.blockNumber).toBe(toHex(setIn))
    expect(logs[0]!.logIndex).toBe('0x0')
    expect(logs[0]!.removed).toBe(false)

    const both = await t.rpc<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', address: store, topics: [topic0] }])
    expect(both).toHaveLength(2)
    const eitherValue = await t.rpc<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', address: [store], topics: [null, [word(100n), word(101n)]] }])
    expect(eitherValue).toHaveLength(2)
  })

  it('an empty address list allows any address, as in geth', async () => {
    const topics = [toEventSelector('ValueSet(uint256,address)')]
    const logs = await t.rpc<{ address: Hex; blockNumber: Hex; blockTimestamp: Hex }[]>('eth_getLogs', [{ fromBlock: '0x0', address: [], topics }])
    expect(logs).toEqual(await t.rpc('eth_getLogs', [{ fromBlock: '0x0', topics }]))
    const ours = logs.filter((log) => log.address === store)
    expect(ours).toHaveLength(2)
    const block = await t.publicClient.getBlock({ blockNumber: setIn })
    expect(ours[1]!.blockNumber).toBe(toHex(setIn))
    expect(BigInt(ours[1]!.blockTimestamp)).toBe(block.timestamp)
  })

  it('topic positions as geth reads them: null among alternatives matches any, and a log needs every position', async () => {
    const topic0 = toEventSelector('ValueSet(uint256,address)')
    const anyValue = await t.rpc<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', address: store, topics: [topic0, [word(999n), null]] }])
    expect(anyValue).toHaveLength(2)
    // ValueSet logs three topics; a fourth position, even null, rules them out.
    expect(await t.rpc('eth_getLogs', [{ fromBlock: '0x0', address: store, topics: [topic0, null, null] }])).toHaveLength(2)
    expect(await t.rpc('eth_getLogs', [{ fromBlock: '0x0', address: store, topics: [topic0, null, null, null] }])).toEqual([])
  })

  it('returns nothing for a topic or address that does not match', async () => {
    expect(await t.rpc('eth_getLogs', [{ fromBlock: '0x0', address: store, topics: [keccak256('0x01')] }])).toEqual([])
    expect(await t.rpc('eth_getLogs', [{ fromBlock: '0x0', address: '0x00000000000000000000000000000000000000aa' }])).toEqual([])
    expect(await t.rpc('eth_getLogs', [{ fromBlock: '0x0', address: store, topics: [null, word(999n)] }])).toEqual([])
  })

  it('a bound past the head, or a range that starts after it ends, is -32602 as in geth', async () => {
    const head = await t.blockNumber()
    const past = `0x${(head + 1n).toString(16)}`
    expect(await t.rpcError('eth_getLogs', [{ fromBlock: past }])).toEqual({ code: -32602, message: 'block range extends beyond current head block' })
    expect(await t.rpcError('eth_getLogs', [{ fromBlock: past, toBlock: 'latest' }])).toEqual({
      code: -32602,
      message: 'block range extends beyond current head block',
    })
    expect(await t.rpcError('eth_getLogs', [{ fromBlock: '0x0', toBlock: past }])).toEqual({
      code: -32602,
      message: 'block range extends beyond current head block',
    })
    expect(await t.rpcError('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x0' }])).toEqual({ code: -32602, message: 'invalid block range params' })
    // The pending block is not past the head: its pre-confirmed logs are asked for by name.
    expect(await t.rpc('eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending' }])).toEqual([])
  })

  it('is found by viem getLogs with an event filter', async () => {
    const logs = await t.publicClient.getLogs({
      address: store,
      event: Store.abi.find((item) => item.type === 'event' && item.name === 'ValueSet') as Extract<(typeof Store.abi)[number], { type: 'event' }>,
      args: { value: 101n },
      fromBlock: 0n,
    })
    expect(logs).toHaveLength(1)
    expect(logs[0]!.args).toEqual({ value: 101n, by: t.accounts[0]!.address })
  })
})

describe('pool errors in geth wording', () => {
  it('nonce too low: a new transaction with a nonce already mined', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address })
    await t.rpc('eth_sendRawTransaction', [await sign(6, { nonce })])
    await t.mine()
    const error = await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, value: 2n })])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^nonce too low/)
    expect(error.message).toBe(`nonce too low: address ${DEV_ACCOUNTS[6]}, tx: ${nonce} state: ${nonce + 1}`)
  })

  it('nonce too low: replacing a transaction that is already pre-confirmed', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    await t.rpc('eth_sendRawTransaction', [await sign(6, { nonce })])
    await t.preconfirm()
    const error = await t.rpcError('eth_sendRawTransaction', [
      await sign(6, { nonce, maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('10') }),
    ])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^nonce too low/)
    await t.mine()
  })

  it('already known: the same raw transaction twice', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const raw = await sign(6, { nonce })
    expect(await t.rpc('eth_sendRawTransaction', [raw])).toBe(keccak256(raw))
    expect(await t.rpcError('eth_sendRawTransaction', [raw])).toEqual({ code: -32000, message: 'already known' })
    await t.mine()
  })

  it('already known: a transaction pre-confirmed in a flashblock, and one already sealed', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const raw = await sign(6, { nonce })
    await t.rpc('eth_sendRawTransaction', [raw])
    await t.preconfirm()
    expect(await t.rpcError('eth_sendRawTransaction', [raw])).toEqual({ code: -32000, message: 'already known' })
    await t.mine()
    expect(await t.rpcError('eth_sendRawTransaction', [raw])).toEqual({ code: -32000, message: 'already known' })
  })

  it('replacement transaction underpriced: same nonce and fees, different value', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const first = await sign(6, { nonce, value: 1n })
    await t.rpc('eth_sendRawTransaction', [first])
    expect(await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, value: 2n })])).toEqual({
      code: -32000,
      message: 'replacement transaction underpriced',
    })
    // A bump of the fee cap alone is not enough: the tip must rise by 10% too.
    expect(await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, value: 2n, maxFeePerGas: parseGwei('20') })])).toEqual({
      code: -32000,
      message: 'replacement transaction underpriced',
    })
    // 9% is not 10%.
    expect(
      await t.rpcError('eth_sendRawTransaction', [
        await sign(6, { nonce, value: 2n, maxFeePerGas: parseGwei('10.9'), maxPriorityFeePerGas: parseGwei('1.09') }),
      ]),
    ).toEqual({ code: -32000, message: 'replacement transaction underpriced' })
    // The original is still the one in the pool.
    expect((await t.publicClient.getTransaction({ hash: keccak256(first) })).value).toBe(1n)
    await t.mine()
  })

  it('a replacement with a 10% fee bump is accepted and the old transaction is gone', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const old = await sign(6, { nonce, value: 1n })
    const oldHash = await t.rpc<Hex>('eth_sendRawTransaction', [old])
    const replacement = await sign(6, { nonce, value: 3n, maxFeePerGas: parseGwei('11'), maxPriorityFeePerGas: parseGwei('1.1') })
    const newHash = await t.rpc<Hex>('eth_sendRawTransaction', [replacement])
    expect(newHash).toBe(keccak256(replacement))

    expect(await t.rpc('eth_getTransactionByHash', [oldHash])).toBeNull()
    expect((await t.publicClient.getTransaction({ hash: newHash })).value).toBe(3n)
    expect(await t.rpc('eth_getTransactionCount', [t.accounts[6]!.address, 'pending'])).toBe(toHex(nonce + 1))

    const flashblock = await t.preconfirm()
    expect(flashblock.transactions).toEqual([newHash])
    const head = await t.mine()
    expect((await t.publicClient.getBlock({ blockNumber: head })).transactions).toEqual([newHash])
    expect(await t.rpc('eth_getTransactionByHash', [oldHash])).toBeNull()
    expect(await t.rpc('eth_getTransactionReceipt', [oldHash])).toBeNull()
    expect((await t.publicClient.getTransactionReceipt({ hash: newHash })).status).toBe('success')
  })

  it('insufficient funds for gas * price + value', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const error = await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, value: parseEther('20000') })])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^insufficient funds for gas \* price \+ value/)
  })

  it('intrinsic gas too low: a transfer with gas 20000', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const error = await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, gas: 20_000n })])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^intrinsic gas too low/)
  })

  it('invalid chain id: a transaction signed for chain 1', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const error = await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, chainId: 1 })])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^invalid chain id/)
  })

  it('a legacy transaction signed for chain 1 (EIP-155) is refused too', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    const raw = await t.accounts[6]!.signTransaction({
      type: 'legacy',
      chainId: 1,
      nonce,
      to: t.accounts[9]!.address,
      value: 1n,
      gas: 21_000n,
      gasPrice: parseGwei('10'),
    })
    const error = await t.rpcError('eth_sendRawTransaction', [raw])
    expect(error.code).toBe(-32000)
    expect(error.message).toMatch(/^invalid chain id/)
  })

  it('intrinsic gas: a gas limit below the EIP-7623 calldata floor is refused at submission', async () => {
    // 1000 non-zero bytes: intrinsic 21000 + 16 × 1000 = 37000, floor 21000 + 10 × 4000 = 61000.
    // From its own account, so that a wrongly admitted transaction cannot disturb the other cases.
    const sender = t.accounts[8]!.address
    const nonce = await t.publicClient.getTransactionCount({ address: sender, blockTag: 'pending' })
    const raw = await sign(8, { nonce, data: `0x${'ff'.repeat(1000)}`, gas: 40_000n })
    const response = await t.send('eth_sendRawTransaction', [raw])
    expect(response.result).toBeUndefined()
    expect(response.error?.code).toBe(-32000)
    // geth: "insufficient gas for floor data gas cost: gas 40000, minimum needed 61000".
    expect(response.error?.message).toMatch(/^(insufficient gas for floor data gas cost|intrinsic gas too low)/)
    expect(response.error?.message).toContain('61000')
    expect(await t.rpc('eth_getTransactionCount', [sender, 'pending'])).toBe(toHex(nonce))
  })

  it("exceeds block gas limit: a gas limit above the block's", async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    expect(await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, gas: 31_000_000n })])).toEqual({
      code: -32000,
      message: 'exceeds block gas limit',
    })
  })

  it('transaction gas limit too high: above the EIP-7825 cap of 2^24 under Osaka', async () => {
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'pending' })
    expect(await t.rpcError('eth_sendRawTransaction', [await sign(6, { nonce, gas: 20_000_000n })])).toEqual({
      code: -32000,
      message: 'transaction gas limit too high (cap: 16777216, tx: 20000000)',
    })
  })

  it('transaction type not supported: an unknown typed-transaction envelope', async () => {
    // Type 0x12 followed by an RLP list: no such EIP-2718 type.
    expect(await t.rpcError('eth_sendRawTransaction', ['0x12c0'])).toEqual({ code: -32000, message: 'transaction type not supported' })
  })

  it('none of the refused transactions entered the pool', async () => {
    const latest = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address, blockTag: 'latest' })
    expect(await t.rpc('eth_getTransactionCount', [t.accounts[6]!.address, 'pending'])).toBe(toHex(latest))
    expect((await t.preconfirm()).transactions).toEqual([])
  })

  it('viem classifies the errors through their wording', async () => {
    const wallet = t.wallet(6)
    const nonce = await t.publicClient.getTransactionCount({ address: t.accounts[6]!.address })
    const attempts = [
      { expected: NonceTooLowError, request: { to: t.accounts[9]!.address, value: 1n, gas: 21_000n, nonce: nonce - 1 } },
      { expected: InsufficientFundsError, request: { to: t.accounts[9]!.address, value: parseEther('20000'), gas: 21_000n, nonce } },
      { expected: IntrinsicGasTooLowError, request: { to: t.accounts[9]!.address, value: 1n, gas: 20_000n, nonce } },
    ] as const
    for (const { expected, request } of attempts) {
      const error = await wallet.sendTransaction(request).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(error).toBeInstanceOf(BaseError)
      expect((error as BaseError).walk((cause) => cause instanceof expected)).toBeInstanceOf(expected)
    }
  })
})
