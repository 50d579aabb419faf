/**
 * Test control in the flashblocks stream (`metadata.flashchain_edits`): a state edit, a revert and a reset reach a
 * reader with the next flashblock, as the writes a replica needs, and every value they carry is what the node then
 * answers at `latest` and `pending`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { keccak256, parseEther } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { readFlashblocks } from './flashblocksReader.ts'
import { deploy, setStoreValue, startChain, toHex, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { ChainEditJSON, FlashblockJSON, StateWritesJSON } from '../../src/rpc/flashblocks.ts'
import type { FlashblocksReader } from './flashblocksReader.ts'
import type { TestChain } from './helpers.ts'

let t: TestChain
let reader: FlashblocksReader
let store: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [1n])).address
  await t.mine()
  reader = await readFlashblocks(t.url)
})

afterAll(async () => {
  await reader?.close()
  await t?.close()
})

/**
 * Publishes a flashblock and returns it as the stream sent it, read after the `mark`th flashblock: a block reverted
 * and built again sends the same numbers and indices again.
 */
async function nextFlashblock(mark = reader.got.length): Promise<FlashblockJSON> {
  const { blockNumber, flashblockIndex } = await t.preconfirm()
  const published = (f: FlashblockJSON) => f.metadata.block_number === Number(blockNumber) && f.index === flashblockIndex
  await reader.until((got) => got.slice(mark).some(published))
  return reader.got.slice(mark).find(published)!
}

/**
 * Runs `change`, then publishes a flashblock; the flashblocks the stream sent meanwhile (a block that starts sends its
 * index 0 first, which carries the edits) and the edits they carried.
 */
async function afterChange(change: () => Promise<unknown>) {
  const mark = reader.got.length
  await change()
  const last = await nextFlashblock(mark)
  const flashblocks = reader.got.slice(mark, reader.got.indexOf(last) + 1)
  return { flashblocks, edits: flashblocks.flatMap((f) => f.metadata.flashchain_edits ?? []) }
}

const accountIn = (writes: StateWritesJSON, address: Hex) => writes.accounts.find((a) => a.address === address.toLowerCase())

describe('test control in the flashblocks stream', () => {
  it('a flashblock with no test control since the one before carries no edits', async () => {
    await setStoreValue(t, store, 1, 2n)
    expect((await nextFlashblock()).metadata.flashchain_edits).toBeUndefined()
  })

  it("an edit while a block is built carries the head's writes and the pending block's, each from its own values", async () => {
    const sender = t.accounts[2]!.address.toLowerCase() as Hex
    // The sender's pending transaction spent gas and value: its pending balance is below its latest one.
    await t.wallet(2).sendTransaction({ to: '0x00000000000000000000000000000000000b0b00', value: parseEther('1') })
    await nextFlashblock()
    await t.rpc('anvil_addBalance', [sender, toHex(parseEther('5'))])
    await t.rpc('anvil_setStorageAt', [store, word(0n), word(42n)])
    const code = '0x60016000526001601ff3' as Hex
    await t.rpc('anvil_setCode', ['0x00000000000000000000000000000000000c0de1', code])
    const edits = (await nextFlashblock()).metadata.flashchain_edits!
    expect(edits.map((e) => e.kind)).toEqual(['edit', 'edit', 'edit'])
    const [balance, storage, setCode] = edits as Extract<ChainEditJSON, { kind: 'edit' }>[]

    const head = Number(await t.blockNumber())
    expect(balance!.block_number).toBe(head)
    const latest = await t.rpc<Hex>('eth_getBalance', [sender, 'latest'])
    const pending = await t.rpc<Hex>('eth_getBalance', [sender, 'pending'])
    expect(BigInt(pending)).toBeLessThan(BigInt(latest))
    expect(accountIn(balance!.latest, sender)).toMatchObject({ balance: latest })
    expect(accountIn(balance!.pending!, sender)).toMatchObject({ balance: pending })

    expect(storage!.latest.storage).toEqual([{ address: store, cleared: false, slots: { [word(0n)]: word(42n) } }])
    expect(await t.rpc('eth_getStorageAt', [store, word(0n), 'pending'])).toBe(word(42n))

    const hash = keccak256(code)
    expect(setCode!.latest.code).toEqual({ [hash]: code })
    expect(accountIn(setCode!.latest, '0x00000000000000000000000000000000000c0de1')).toMatchObject({ code_hash: hash })
    expect(await t.rpc('eth_getCode', ['0x00000000000000000000000000000000000c0de1', 'pending'])).toBe(code)
    await t.mine()
  })

  it('an edit with no block being built has no pending writes: the pending block reads the head', async () => {
    const who = '0x00000000000000000000000000000000000a11ce'
    const { flashblocks, edits } = await afterChange(() => t.rpc('anvil_setBalance', [who, toHex(7n)]))
    const [edit] = edits as Extract<ChainEditJSON, { kind: 'edit' }>[]
    expect(edits).toHaveLength(1)
    // The block that starts after the edit sends it with its first flashblock.
    expect(flashblocks[0]).toMatchObject({ index: 0, metadata: { flashchain_edits: edits } })
    expect(edit!.pending).toBeNull()
    expect(accountIn(edit!.latest, who)).toMatchObject({ balance: '0x7', nonce: '0x0' })
    await t.mine()
  })

  it("a revert carries the block it went back to and the writes that take that block's state back", async () => {
    const head = await t.blockNumber()
    const who = '0x0000000000000000000000000000000000000b0c'
    const before = await t.rpc<Hex>('eth_getBalance', [who, 'latest'])
    const id = await t.rpc<Hex>('evm_snapshot')
    await t.wallet(3).sendTransaction({ to: who, value: parseEther('2') })
    await t.mine()
    await t.rpc('anvil_setStorageAt', [store, word(0n), word(77n)])
    const { flashblocks, edits } = await afterChange(async () => expect(await t.rpc('evm_revert', [id])).toBe(true))
    expect(edits.map((e) => e.kind)).toEqual(['edit', 'rewind'])
    const rewind = edits[1] as Extract<ChainEditJSON, { kind: 'rewind' }>
    expect(rewind.block_number).toBe(Number(head))
    expect(flashblocks[0]?.metadata.block_number).toBe(Number(head) + 1)
    // Every value the writes carry is the state the node answers now: the recipient did not exist before the snapshot.
    expect(before).toBe('0x0')
    expect(accountIn(rewind.writes, who)).toEqual({ address: who, deleted: true })
    expect(await t.rpc('eth_getBalance', [who, 'latest'])).toBe(before)
    const sender = t.accounts[3]!.address.toLowerCase() as Hex
    expect(accountIn(rewind.writes, sender)).toMatchObject({ nonce: await t.rpc<Hex>('eth_getTransactionCount', [sender, 'latest']) })
    const slot = rewind.writes.storage.find((s) => s.address === store)!.slots[word(0n)]
    expect(slot).toBe(await t.rpc<Hex>('eth_getStorageAt', [store, word(0n), 'latest']))
    expect(slot).not.toBe(word(77n))
  })

  it('a reset carries the first block, its number and hash', async () => {
    await t.mine()
    const { flashblocks, edits } = await afterChange(() => t.rpc('anvil_reset'))
    const genesis = await t.publicClient.getBlock({ blockNumber: 0n })
    expect(edits).toEqual([{ kind: 'reset', block_number: 0, block_hash: genesis.hash }])
    expect(flashblocks[0]?.metadata).toMatchObject({ block_number: 1, flashchain_edits: edits })
  })
})
