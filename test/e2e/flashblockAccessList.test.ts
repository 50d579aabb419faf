/**
 * Each flashblock's access list (`metadata.flashblock_access_list`, base's docs/specs/access-lists.md), read off the
 * stream as a Base node would, and checked against what other parts of the node say of the same transactions: the
 * prestate tracer's diff of each one, the sealed state, EIP-2935's history slot, and an RLP hash computed here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { encodeFunctionData, keccak256, parseEther, toRlp } from 'viem'

import { Reverter, Store } from './fixtures/contracts.ts'
import { readFlashblocks } from './flashblocksReader.ts'
import { deploy, setStoreValue, startChain, toHex, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { FlashblockAccessListJSON, FlashblockJSON } from '../../src/rpc/flashblocks.ts'
import type { FlashblocksReader } from './flashblocksReader.ts'
import type { TestChain } from './helpers.ts'

let t: TestChain
let reader: FlashblocksReader
let store: Hex
let reverter: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [1n])).address
  reverter = (await deploy(t, Reverter, [], 1)).address
  await t.mine()
  reader = await readFlashblocks(t.url)
})

afterAll(async () => {
  await reader?.close()
  await t?.close()
})

const EMPTY_LIST_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'
const HISTORY_STORAGE = '0x0000f90827f1c53a10cb7a02335b175320002935'
const SYSTEM_CALLER = '0xfffffffffffffffffffffffffffffffffffffffe'

type Changes = { balance?: Hex; nonce?: Hex; code?: Hex; storage: Record<Hex, Hex> }
type TracedAccount = { balance?: Hex; nonce?: number; code?: Hex; storage?: Record<Hex, Hex> }

/** Seals the block and waits for its last flashblock (the one with the sealed hash); its flashblocks, in order. */
async function sealAndRead(): Promise<FlashblockJSON[]> {
  const number = Number(await t.mine())
  const { hash } = await t.publicClient.getBlock({ blockNumber: BigInt(number) })
  await reader.until((got) => got.some((f) => f.metadata.block_number === number && f.diff.block_hash === hash))
  return reader.got.filter((f) => f.metadata.block_number === number)
}

/** A flashblock's access list, which every flashblock of a block begun while the stream had a reader has. */
function fal(flashblock: FlashblockJSON): FlashblockAccessListJSON {
  const list = flashblock.metadata.flashblock_access_list
  if (list === undefined) throw new Error(`flashblock ${flashblock.metadata.block_number}.${flashblock.index} has no access list`)
  return list
}

/** What the access lists of a block's flashblocks say changed at block access index `index`, by address. */
function changesAt(flashblocks: FlashblockJSON[], index: number): Map<Hex, Changes> {
  const at = toHex(index)
  const changes = new Map<Hex, Changes>()
  const of = (address: Hex) => changes.get(address) ?? changes.set(address, { storage: {} }).get(address)!
  for (const account of flashblocks.flatMap((f) => fal(f).account_changes)) {
    for (const change of account.balanceChanges) if (change.blockAccessIndex === at) of(account.address).balance = change.postBalance
    for (const change of account.nonceChanges) if (change.blockAccessIndex === at) of(account.address).nonce = change.newNonce
    for (const change of account.codeChanges) if (change.blockAccessIndex === at) of(account.address).code = change.newCode
    for (const { slot, changes: writes } of account.storageChanges) {
      for (const change of writes) if (change.blockAccessIndex === at) of(account.address).storage[slot] = change.newValue
    }
  }
  return changes
}

/** What the prestate tracer's diff mode says a transaction changed, in the same terms (a cleared slot is in `pre` only). */
async function tracedChanges(hash: Hex): Promise<Map<Hex, Changes>> {
  const { pre, post } = await t.rpc<{ pre: Record<Hex, TracedAccount>; post: Record<Hex, TracedAccount> }>('debug_traceTransaction', [
    hash,
    { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
  ])
  const changes = new Map<Hex, Changes>()
  for (const address of new Set([...Object.keys(pre), ...Object.keys(post)] as Hex[])) {
    const before = pre[address] ?? {}
    const after = post[address]
    const entry: Changes = { storage: {} }
    if (after === undefined) {
      // Deleted: its balance went to zero.
      if (before.balance !== undefined && BigInt(before.balance) > 0n) entry.balance = '0x0'
    } else {
      if (after.balance !== undefined) entry.balance = toHex(BigInt(after.balance))
      if (after.nonce !== undefined) entry.nonce = toHex(after.nonce)
      if (after.code !== undefined) entry.code = after.code
      for (const slot of Object.keys(before.storage ?? {}) as Hex[]) entry.storage[slot] = after.storage?.[slot] ?? word(0n)
      Object.assign(entry.storage, after.storage)
    }
    changes.set(address, entry)
  }
  return changes
}

/** The RLP Base's spec gives the account changes, built here from the JSON: slots and values as 32 bytes, the rest as integers. */
function falHash(list: FlashblockAccessListJSON): Hex {
  const int = (quantity: Hex): Hex => {
    const digits = BigInt(quantity).toString(16)
    return digits === '0' ? '0x' : `0x${digits.length % 2 === 1 ? '0' : ''}${digits}`
  }
  return keccak256(
    toRlp(
      list.account_changes.map((account) => [
        account.address,
        account.storageChanges.map(({ slot, changes }) => [slot, changes.map((c) => [int(c.blockAccessIndex), c.newValue])]),
        account.storageReads,
        account.balanceChanges.map((c) => [int(c.blockAccessIndex), int(c.postBalance)]),
        account.nonceChanges.map((c) => [int(c.blockAccessIndex), int(c.newNonce)]),
        account.codeChanges.map((c) => [int(c.blockAccessIndex), c.newCode]),
      ]),
    ),
  )
}

describe('the flashblock access list', () => {
  it("lists each transaction's changes at its index, as the prestate tracer's diff has them, across the block's flashblocks", async () => {
    const recipient = '0x00000000000000000000000000000000000f00d1'
    const transfer = await t.wallet(2).sendTransaction({ to: recipient, value: parseEther('1') })
    const set = await setStoreValue(t, store, 3, 7n)
    await t.preconfirm()
    const created = await deploy(t, Store, [5n], 4)
    const reverted = await t
      .wallet(5)
      .sendTransaction({ to: reverter, data: encodeFunctionData({ abi: Reverter.abi, functionName: 'custom' }), gas: 100_000n })
    const flashblocks = await sealAndRead()

    const receipts = await Promise.all([transfer, set, created.hash, reverted].map((hash) => t.publicClient.getTransactionReceipt({ hash })))
    expect(receipts.map((r) => r.status)).toEqual(['success', 'success', 'success', 'reverted'])
    for (const receipt of receipts) {
      const index = receipt.transactionIndex + 1
      expect(Object.fromEntries(changesAt(flashblocks, index))).toEqual(Object.fromEntries(await tracedChanges(receipt.transactionHash)))
    }
    // The transfer's recipient and the new contract are there, and the reverted call's target is listed without changes.
    expect(changesAt(flashblocks, receipts[0]!.transactionIndex + 1).get(recipient)?.balance).toBe(toHex(parseEther('1')))
    expect(changesAt(flashblocks, receipts[2]!.transactionIndex + 1).get(created.address)?.code).toBe(Store.deployedBytecode.toLowerCase())
    const listed = flashblocks.flatMap((f) => fal(f).account_changes).filter((a) => a.address === reverter)
    expect(listed.length).toBeGreaterThan(0)
    expect(listed.every((a) => a.storageChanges.length + a.balanceChanges.length + a.nonceChanges.length + a.codeChanges.length === 0)).toBe(true)

    // Each flashblock's bounds are its transactions' places in the block, end to end, and each change is in the
    // flashblock that holds its transaction (index 0 in the first, transactions + 1 in the last), once.
    let next = 0
    const seen = new Set<string>()
    for (const [n, flashblock] of flashblocks.entries()) {
      const { min_tx_index, max_tx_index, account_changes } = fal(flashblock)
      expect([min_tx_index, max_tx_index - min_tx_index]).toEqual([next, flashblock.diff.transactions.length])
      next = max_tx_index
      const last = n === flashblocks.length - 1
      for (const account of account_changes) {
        const changes = [
          ...account.balanceChanges.map((c) => ['balance', c.blockAccessIndex]),
          ...account.nonceChanges.map((c) => ['nonce', c.blockAccessIndex]),
          ...account.codeChanges.map((c) => ['code', c.blockAccessIndex]),
          ...account.storageChanges.flatMap(({ slot, changes: writes }) => writes.map((c) => [slot, c.blockAccessIndex])),
        ]
        for (const [what, at] of changes) {
          const index = Number(at)
          const inThis = (index === 0 && n === 0) || (index > min_tx_index && index <= max_tx_index) || (last && index === max_tx_index + 1)
          expect([account.address, what, index, inThis]).toEqual([account.address, what, index, true])
          const key = `${account.address} ${what} ${index}`
          expect(seen.has(key)).toBe(false)
          seen.add(key)
        }
      }
    }
    expect(next).toBe(4)
    // The system calls' caller is not listed (EIP-7928), though every system call reads it.
    const listedAddresses = flashblocks.flatMap((f) => fal(f).account_changes.map((a) => a.address))
    expect(listedAddresses).not.toContain(SYSTEM_CALLER)
    expect(listedAddresses).toContain(HISTORY_STORAGE)
  })

  it("starts each block with the system calls at index 0: EIP-2935's slot of the parent gets the parent's hash", async () => {
    await setStoreValue(t, store, 6, 8n)
    const flashblocks = await sealAndRead()
    const [first] = flashblocks
    const number = BigInt(first!.metadata.block_number)
    const parent = await t.publicClient.getBlock({ blockNumber: number - 1n })
    expect(first!.index).toBe(0)
    expect([fal(first!).min_tx_index, fal(first!).max_tx_index]).toEqual([0, 0])
    const history = changesAt([first!], 0).get(HISTORY_STORAGE)
    expect(history?.storage).toEqual({ [word((number - 1n) % 8191n)]: parent.hash })
    expect(await t.rpc('eth_getStorageAt', [HISTORY_STORAGE, word((number - 1n) % 8191n), toHex(number)])).toBe(parent.hash)
  })

  it('lists a slot written back to the value it had as a read, not a change', async () => {
    const value = BigInt(await t.rpc<Hex>('eth_getStorageAt', [store, word(0n), 'latest']))
    await setStoreValue(t, store, 7, value)
    const { flashblockIndex } = await t.preconfirm()
    const flashblocks = await sealAndRead()
    const own = flashblocks.find((f) => f.index === flashblockIndex)!
    const entry = fal(own).account_changes.find((a) => a.address === store)
    expect(entry).toMatchObject({ storageChanges: [], storageReads: [word(0n)] })
  })

  it("hashes the changes' RLP (the empty list's hash when a flashblock accessed nothing), and the sealed state has each last value", async () => {
    await setStoreValue(t, store, 8, 99n)
    await t.preconfirm()
    const idle = await t.preconfirm()
    const flashblocks = await sealAndRead()
    for (const flashblock of flashblocks) expect(fal(flashblock).fal_hash).toBe(falHash(fal(flashblock)))
    const nothing = fal(flashblocks.find((f) => f.index === idle.flashblockIndex)!)
    expect(nothing).toEqual({ min_tx_index: 1, max_tx_index: 1, account_changes: [], fal_hash: EMPTY_LIST_HASH })

    const number = toHex(flashblocks[0]!.metadata.block_number)
    const last = new Map<string, Hex>()
    for (const account of flashblocks.flatMap((f) => fal(f).account_changes)) {
      for (const c of account.balanceChanges) last.set(`${account.address} balance`, c.postBalance)
      for (const c of account.nonceChanges) last.set(`${account.address} nonce`, c.newNonce)
      for (const { slot, changes } of account.storageChanges) for (const c of changes) last.set(`${account.address} ${slot}`, c.newValue)
    }
    expect(last.get(`${store} ${word(0n)}`)).toBe(word(99n))
    for (const [key, value] of last) {
      const [address, what] = key.split(' ') as [Hex, string]
      const sealed =
        what === 'balance'
          ? await t.rpc('eth_getBalance', [address, number])
          : what === 'nonce'
            ? await t.rpc('eth_getTransactionCount', [address, number])
            : await t.rpc('eth_getStorageAt', [address, what, number])
      expect([key, sealed]).toEqual([key, value])
    }
  })
})

describe('the flashblock access list of a block begun before the stream had a reader', () => {
  it('is absent from that block, which nobody recorded from its start, and there from the next block on', async () => {
    const chain = await startChain()
    try {
      await chain.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000f00d2', value: 1n })
      await chain.preconfirm()
      const late = await readFlashblocks(chain.url)
      try {
        await chain.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000f00d2', value: 1n })
        const { blockNumber } = await chain.preconfirm()
        await chain.mine()
        await chain.wallet(1).sendTransaction({ to: '0x00000000000000000000000000000000000f00d2', value: 1n })
        await chain.preconfirm()
        const next = Number(blockNumber) + 1
        await late.until((got) => got.some((f) => f.metadata.block_number === next && f.diff.transactions.length > 0))
        const begunBefore = late.got.filter((f) => f.metadata.block_number === Number(blockNumber))
        const begunAfter = late.got.filter((f) => f.metadata.block_number === next)
        expect(begunBefore.length).toBeGreaterThan(0)
        expect(begunBefore.every((f) => f.metadata.flashblock_access_list === undefined)).toBe(true)
        expect(begunAfter.length).toBeGreaterThan(0)
        expect(begunAfter.every((f) => f.metadata.flashblock_access_list !== undefined)).toBe(true)
      } finally {
        await late.close()
      }
    } finally {
      await chain.close()
    }
  })
})
