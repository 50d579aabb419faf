import { createBlock } from '@ethereumjs/block'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'

import { createChain } from '../chain.ts'
import { deriveAccounts } from '../spec/accounts.ts'
import { createSealedBlocks } from './sealedBlocks.ts'
import { sealedBlockOf } from './views.ts'

import type { SealedBlocksSource } from './sealedBlocks.ts'
import { fundedGenesis } from '../testing/fixtures.ts'

import type { SealedBlock } from './types.ts'
import type { Hex } from '../../hex.ts'
import type { Receipt } from '../types.ts'

/** Block `number` of a bare chain, with `transactions` receipts (their transactions do not matter here). */
function sealedBlock(number: number, transactions: number, logs = 0): SealedBlock {
  const block = createBlock({ header: { number: BigInt(number), extraData: new Uint8Array([number]) } })
  const receipt: Receipt = {
    status: 1,
    cumulativeGasUsed: 21_000n,
    gasUsed: 21_000n,
    logs: [],
    logsBloom: '0x',
    contractAddress: null,
    effectiveGasPrice: 1n,
  }
  const receipts = Array.from({ length: transactions }, (_, i) => ({
    ...receipt,
    logs: i < logs ? [{ address: `0x${'11'.repeat(20)}` as Hex, topics: [], data: '0x' as Hex }] : [],
  }))
  return { block, hash: bytesToHex(block.hash()) as Hex, number: BigInt(number), senders: [], receipts }
}

/** A store's answers over `stored`, counting the blocks it decodes; it knows every hash it was given, as a store does until a truncate. */
function sourceOf(stored: SealedBlock[], transactions: (number: bigint) => number, reads: bigint[]): SealedBlocksSource {
  const numbers = new Map(stored.map((sealed) => [sealed.hash, sealed.number]))
  return {
    load(number, hash) {
      reads.push(number)
      const again = sealedBlock(Number(number), transactions(number))
      expect(again.hash).toBe(hash)
      return again
    },
    view: (_number, hash, whole) => {
      const sealed = whole()
      expect(sealed.hash).toBe(hash)
      return sealedBlockOf(sealed)
    },
    numberOf: (hash) => numbers.get(hash),
    locate: () => undefined,
    transaction: () => undefined,
    timestamp: (number) => BigInt(number) * 2n,
    logRows: () => [],
  }
}

/** Sealed blocks over a store of `count` blocks of `transactions` each, counting the reads from it. */
function chainOf(count: number, transactions: number, capacity: { whole: number; readBack: number }) {
  const stored = Array.from({ length: count }, (_, number) => sealedBlock(number, number === 0 ? 0 : transactions))
  const reads: bigint[] = []
  const blocks = createSealedBlocks({
    wholeTransactions: capacity.whole,
    readBackTransactions: capacity.readBack,
    source: sourceOf(stored, (number) => (number === 0n ? 0 : transactions), reads),
  })
  for (const sealed of stored) blocks.add(sealed)
  return { blocks, stored, reads }
}

describe('createSealedBlocks', () => {
  test('default: the newest blocks are held whole; older ones are read back once, then held for a while', () => {
    const { blocks, stored, reads } = chainOf(10, 4, { whole: 12, readBack: 8 })
    expect(blocks.count).toBe(10)
    // 12 transactions hold blocks 7 to 9.
    expect([7n, 8n, 9n].map((n) => blocks.byNumber(n))).toEqual([stored[7], stored[8], stored[9]])
    expect(reads).toEqual([])

    const older = blocks.byNumber(2n)!
    expect(older).not.toBe(stored[2])
    expect(older.hash).toBe(stored[2]!.hash)
    expect(blocks.byNumber(2n)).toBe(older)
    expect(blocks.byHash(stored[2]!.hash.toUpperCase().replace('0X', '0x') as Hex)).toBe(older)
    expect(reads).toEqual([2n])

    // Blocks 3 and 4 overflow the 8 read-back transactions: block 2, the least recently used, is given up.
    blocks.byNumber(3n)
    blocks.byNumber(4n)
    blocks.byNumber(2n)
    expect(reads).toEqual([2n, 3n, 4n, 2n])
    // A scan over history never pushes out the newest blocks.
    expect([7n, 8n, 9n].map((n) => blocks.byNumber(n))).toEqual([stored[7], stored[8], stored[9]])
    expect(reads).toEqual([2n, 3n, 4n, 2n])
  })

  test('the head stays whole even when it alone weighs more than the bound', () => {
    const { blocks, stored, reads } = chainOf(3, 50, { whole: 10, readBack: 10 })
    expect(blocks.head()).toBe(stored[2])
    expect(blocks.byNumber(2n)).toBe(stored[2])
    blocks.byNumber(1n)
    expect(blocks.head()).toBe(stored[2])
    expect(blocks.byNumber(2n)).toBe(stored[2])
    expect(reads).toEqual([1n])
  })

  test('a chain resumed from its store holds only the head whole, and reads the rest back when named', () => {
    const stored = Array.from({ length: 5 }, (_, number) => sealedBlock(number, 1))
    const reads: bigint[] = []
    const hashes = Uint8Array.from(stored.flatMap((sealed) => [...hexToBytes(sealed.hash)]))
    const blocks = createSealedBlocks({ source: sourceOf(stored, () => 1, reads), stored: { hashes, head: stored[4]! } })
    expect(blocks.count).toBe(5)
    expect(blocks.head()).toBe(stored[4])
    expect(bytesToHex(blocks.hash(2n)!)).toBe(stored[2]!.hash)
    expect(blocks.timestamp(4n)).toBe(stored[4]!.block.header.timestamp)
    expect(blocks.timestamp(3n)).toBe(6n)
    expect(reads).toEqual([])
    expect(blocks.byNumber(3n)!.hash).toBe(stored[3]!.hash)
    expect(reads).toEqual([3n])
    blocks.add(sealedBlock(5, 0))
    expect(blocks.count).toBe(6)
    expect(() => blocks.add(sealedBlock(7, 0))).toThrow('block 7 added after block 5')
  })

  test('truncate forgets the later blocks and their hashes; the chain goes on from there', () => {
    const { blocks, stored } = chainOf(6, 2, { whole: 100, readBack: 10 })
    const laterHash = stored[4]!.hash
    blocks.truncate(3n)
    expect(blocks.count).toBe(4)
    expect(blocks.head()).toBe(stored[3])
    expect(blocks.byNumber(4n)).toBeUndefined()
    // The store still names it (a real one forgets it in the same transaction): the chain's own list decides.
    expect(blocks.numberOf(laterHash)).toBeUndefined()
    expect(blocks.byHash(laterHash)).toBeUndefined()
    expect(blocks.hash(4n)).toBeUndefined()
    expect(blocks.hashes()).toHaveLength(4 * 32)
    const next = sealedBlock(4, 1)
    blocks.add(next)
    expect(blocks.head().number).toBe(4n)
    expect(bytesToHex(blocks.hash(4n)!)).toBe(next.hash)
    expect(() => blocks.truncate(-1n)).toThrow(/first block stays/)
  })

  test('hashes and numbers are known without reading a block back', () => {
    const stored = [sealedBlock(0, 0), sealedBlock(1, 2, 1), sealedBlock(2, 2)]
    const source = sourceOf(stored, () => 0, [])
    const blocks = createSealedBlocks({
      wholeTransactions: 1,
      readBackTransactions: 1,
      source: {
        ...source,
        load: () => {
          throw new Error('read back')
        },
      },
    })
    for (const sealed of stored) blocks.add(sealed)
    expect(blocks.hash(1n)).toEqual(hexToBytes(stored[1]!.hash))
    expect(blocks.hash(3n)).toBeUndefined()
    expect(blocks.numberOf(stored[1]!.hash)).toBe(1n)
    expect(blocks.numberOf(`0x${'00'.repeat(32)}`)).toBeUndefined()
    expect(blocks.hashes()).toEqual(Uint8Array.from(stored.flatMap((sealed) => [...hexToBytes(sealed.hash)])))
    expect(blocks.byNumber(3n)).toBeUndefined()
    expect(blocks.byHash(`0x${'00'.repeat(32)}`)).toBeUndefined()
  })

  test("a fork's blocks start at the fork block: nothing before it is held, and a restart starts over at another", () => {
    const stored = [100, 101, 102].map((number) => sealedBlock(number, 1, number === 101 ? 1 : 0))
    const blocks = createSealedBlocks({
      first: 100n,
      source: { ...sourceOf(stored, () => 1, []), load: () => expect.unreachable('every block is held') },
    })
    for (const sealed of stored) blocks.add(sealed)
    expect(blocks.first).toBe(100n)
    expect(blocks.count).toBe(3)
    expect(blocks.byNumber(99n)).toBeUndefined()
    expect(blocks.byNumber(0n)).toBeUndefined()
    expect(blocks.byNumber(101n)?.hash).toBe(stored[1]!.hash)
    expect(blocks.numberOf(stored[2]!.hash)).toBe(102n)
    expect(blocks.byHash(stored[1]!.hash)?.number).toBe(101n)
    expect(blocks.hash(99n)).toBeUndefined()
    expect(bytesToHex(blocks.hash(100n)!)).toBe(stored[0]!.hash)
    expect(() => blocks.add(sealedBlock(104, 0))).toThrow('block 104 added after block 102')
    blocks.truncate(101n)
    expect(blocks.head().number).toBe(101n)
    expect(() => blocks.truncate(99n)).toThrow(/first block stays/)

    const other = sealedBlock(200, 0)
    blocks.restart(other)
    expect(blocks.first).toBe(200n)
    expect(blocks.count).toBe(1)
    expect(blocks.head()).toBe(other)
    expect(blocks.byNumber(101n)).toBeUndefined()
    expect(blocks.numberOf(stored[0]!.hash)).toBeUndefined()
    blocks.add(sealedBlock(201, 0))
    expect(blocks.head().number).toBe(201n)
  })
})

const accounts = deriveAccounts('test test test test test test test test test test test junk', 2)
const genesis = fundedGenesis(accounts)
// PUSH1 0 CALLDATALOAD PUSH1 0 PUSH1 0 LOG1 STOP: logs no data under topic calldata word 0. Init code returns it.
const runtime = '60003560006000a100'
const initCode = `0x68${runtime}60005260096017f3` as Hex
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex

describe('a chain whose old blocks are read back from its store', () => {
  test('answers for them as it did when they were new: block, transactions, receipts and logs', async () => {
    const chain = await createChain({ genesis, mining: 'manual', workers: 0, wholeTransactions: 2 })
    const signer = privateKeyToAccount(accounts[0]!.privateKey)
    let nonce = 0
    const send = async (fields: { to?: Hex; data?: Hex; gas: bigint }, type: 'eip1559' | 'legacy' = 'eip1559') => {
      const fees = type === 'legacy' ? { gasPrice: 10n ** 10n } : { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }
      const raw = await signer.signTransaction({ chainId: 31337, type, nonce: nonce++, value: 0n, ...fees, ...fields } as never)
      await chain.pool.sendRawTransaction(hexToBytes(raw))
    }
    try {
      await send({ data: initCode, gas: 100_000n })
      const first = await chain.producer.mine()
      const contract = first.receipts[0]!.contractAddress!
      // A legacy transaction logs: a block body holds it as an RLP list, not as its encoding.
      await send({ to: contract, data: word(7), gas: 50_000n }, 'legacy')
      await send({ to: accounts[1]!.address, gas: 21_000n })
      const second = await chain.producer.mine()
      const logsBefore = chain.blocks.logs({ fromBlock: 0n, toBlock: 2n })
      expect(logsBefore).toMatchObject([{ address: contract, topics: [word(7)], blockNumber: 2n, transactionIndex: 0, logIndex: 0 }])
      expect(logsBefore[0]!.transactionHash).toBe(second.transactions[0]!.hash)
      expect(logsBefore[0]!.blockTimestamp).toBe(second.header.timestamp)

      // Three more blocks of transfers push blocks 1 and 2 out of memory.
      for (let i = 0; i < 3; i++) {
        await send({ to: accounts[1]!.address, gas: 21_000n })
        await chain.producer.mine()
      }
      // Read from the store without decoding the block, then filtered by the blocks' blooms first.
      expect(chain.blocks.logs({ fromBlock: 0n, toBlock: 5n })).toEqual(logsBefore)
      expect(chain.blocks.logs({ fromBlock: 0n, toBlock: 5n, addresses: [contract] })).toEqual(logsBefore)
      expect(chain.blocks.logs({ fromBlock: 0n, toBlock: 5n, addresses: [] })).toEqual(logsBefore)
      expect(chain.blocks.logs({ fromBlock: 0n, toBlock: 5n, topics: [[word(8), word(7)]] })).toEqual(logsBefore)
      expect(chain.blocks.logs({ fromBlock: 0n, toBlock: 5n, addresses: [accounts[1]!.address.toLowerCase() as Hex] })).toEqual([])
      expect(chain.blocks.logs({ fromBlock: 0n, toBlock: 5n, topics: [word(8)] })).toEqual([])
      // As in geth, a filter with more positions than the log has topics does not match it, even with null there.
      expect(chain.blocks.logs({ fromBlock: 0n, toBlock: 5n, topics: [word(7), null] })).toEqual([])

      // Decoded again from the store: a new object with the same data.
      const again = chain.blocks.block(2n)!
      expect(again).not.toBe(second)
      expect(again).toEqual(second)
      expect(chain.blocks.block({ blockHash: first.hash })).toEqual(first)
      expect(chain.blocks.numberOf({ blockHash: first.hash })).toBe(1n)

      const found = chain.blocks.transaction(second.transactions[1]!.hash)
      expect(found).toMatchObject({ kind: 'sealed', index: 1, transaction: { from: signer.address.toLowerCase() }, receipt: second.receipts[1] })
    } finally {
      await chain.close()
    }
  })
})

describe('a transaction read back alone from the store', () => {
  test("is decoded with its block's hardfork, not the genesis': a 7702 transaction after a scheduled Prague", async () => {
    const scheduled = fundedGenesis(accounts, 'cancun') as { config: Record<string, unknown> }
    // Prague is scheduled after the genesis: every block sealed now, stamped by the clock, is Prague's.
    scheduled.config.pragueTime = 1_700_000_100
    ;(scheduled.config.blobSchedule as Record<string, unknown>).prague = { target: 6, max: 9, baseFeeUpdateFraction: 5007716 }
    const chain = await createChain({ genesis: scheduled, mining: 'manual', workers: 0, wholeTransactions: 1 })
    try {
      const authority = privateKeyToAccount(accounts[1]!.privateKey)
      const authorization = await authority.signAuthorization({ address: `0x${'42'.repeat(20)}`, chainId: 31337, nonce: 0 })
      const raw = await privateKeyToAccount(accounts[0]!.privateKey).signTransaction({
        chainId: 31337,
        type: 'eip7702',
        nonce: 0,
        to: authority.address,
        gas: 100_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
        authorizationList: [authorization],
      })
      const hash = await chain.pool.sendRawTransaction(hexToBytes(raw))
      await chain.producer.mine()
      const held = chain.blocks.transaction(hash)
      expect(held).toMatchObject({ kind: 'sealed', index: 0, transaction: { type: 4 } })
      // Later blocks push its block out of memory (wholeTransactions: 1): it is read back alone.
      for (let i = 0; i < 4; i++) await chain.producer.mine()
      expect(chain.blocks.transaction(hash)).toEqual(held)
      expect(chain.blocks.rawTransaction(hash)).toEqual(hexToBytes(raw))
    } finally {
      await chain.close()
    }
  })
})
