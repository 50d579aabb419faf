import { describe, expect, test } from 'vitest'

import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP, hexToBytes } from '@ethereumjs/util'

import { createStateHistory, createTouchedKeys } from './history.ts'
import { encodeAccount, createStateTrie, startStateTrie } from './trie.ts'
import { yieldToEventLoop } from '../../runtime/eventLoop.ts'
import { createStateDiff } from './types.ts'

import type { AccountRecord } from './types.ts'
import type { Hex } from '../../hex.ts'

const a = '0x000000000000000000000000000000000000000a' as Hex
const b = '0x000000000000000000000000000000000000000b' as Hex
const slot = `0x${'00'.repeat(31)}01` as Hex
const record = (balance: bigint): AccountRecord => ({ nonce: 1n, balance, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP })

/** The root built from scratch, the slow and obviously right way. */
async function rootFromScratch(accounts: [Hex, AccountRecord, Map<Hex, Uint8Array>][]) {
  const trie = new MerklePatriciaTrie({ useKeyHashing: true })
  for (const [address, account, slots] of accounts) {
    const storage = new MerklePatriciaTrie({ useKeyHashing: true })
    for (const [key, value] of slots) await storage.put(hexToBytes(key), RLP.encode(value))
    await trie.put(hexToBytes(address), encodeAccount(account, storage.root()))
  }
  return trie.root()
}

/** A history whose block 0 holds account `a` with balance 1, and the trie of that state. */
async function startedWithA() {
  const history = createStateHistory()
  const genesis = createStateDiff()
  genesis.accounts.set(a, record(1n))
  history.commit(0n, genesis)
  return { history, trie: await createStateTrie(history.entries()) }
}

describe('state trie', () => {
  test('error: a block applied while another is applied is refused, not merged over the other', async () => {
    const { history, trie } = await startedWithA()
    const diff = (address: Hex, balance: bigint) => {
      const written = createStateDiff()
      written.accounts.set(address, record(balance))
      history.commit(balance, written)
      return written
    }
    const first = trie.apply(diff(a, 2n), history.at(2n))
    const second = trie.apply(diff(b, 3n), history.at(3n))
    const [one, two] = await Promise.allSettled([first, second])
    // The one that keeps its root first wins; the other finds the head moved.
    expect([one.status, two.status].sort()).toEqual(['fulfilled', 'rejected'])
    const refused = [one, two].find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(String(refused.reason)).toMatch(/the state trie changed while a block was applied to it/)
  })

  test('applying diffs gives the root of the whole state', async () => {
    const { history, trie } = await startedWithA()
    expect(trie.root()).toEqual(await rootFromScratch([[a, record(1n), new Map()]]))

    const block1 = createStateDiff()
    block1.accounts.set(b, record(2n))
    block1.storage.set(a, { cleared: false, slots: new Map([[slot, Uint8Array.of(42)]]) })
    history.commit(1n, block1)
    const { root, storageRoots } = await trie.apply(block1, history.at(1n))
    expect(root).toEqual(
      await rootFromScratch([
        [a, record(1n), new Map([[slot, Uint8Array.of(42)]])],
        [b, record(2n), new Map()],
      ]),
    )
    expect(storageRoots.get(a)).toEqual(trie.storageRoot(a))
  })

  test('a preview leaves the trie at the head', async () => {
    const history = createStateHistory()
    const genesis = createStateDiff()
    genesis.accounts.set(a, record(1n))
    genesis.storage.set(a, { cleared: false, slots: new Map([[slot, Uint8Array.of(1)]]) })
    history.commit(0n, genesis)
    const trie = await createStateTrie(history.entries())
    const before = trie.root()

    const change = createStateDiff()
    change.accounts.set(a, record(9n))
    change.storage.set(a, { cleared: true, slots: new Map() })
    const preview = await trie.preview(change, { account: () => record(9n), storage: () => new Uint8Array(), code: () => undefined })
    expect(preview.root).toEqual(await rootFromScratch([[a, record(9n), new Map()]]))
    expect(trie.root()).toEqual(before)
    expect(trie.storageRoot(a)).not.toEqual(KECCAK256_RLP)
  })

  test('after a rewind and an undo, the trie moved back by the keys they touched has the root of the state then', async () => {
    const history = createStateHistory()
    const trie = await createStateTrie()
    const other = `0x${'00'.repeat(31)}02` as Hex
    const untouched = `0x${'00'.repeat(31)}03` as Hex
    const commit = async (number: bigint, build: (diff: ReturnType<typeof createStateDiff>) => void) => {
      const diff = createStateDiff()
      build(diff)
      history.commit(number, diff)
      await trie.apply(diff, history.at(number))
    }
    await commit(0n, (d) => {
      d.accounts.set(a, record(1n))
      // `untouched` is written at block 0 alone: only the forgotten clear of block 1 can bring it back.
      d.storage.set(a, {
        cleared: false,
        slots: new Map([
          [slot, Uint8Array.of(1)],
          [other, Uint8Array.of(2)],
          [untouched, Uint8Array.of(3)],
        ]),
      })
    })
    const atZero = trie.root()
    const edit = createStateDiff()
    edit.accounts.set(b, record(9n))
    edit.storage.set(a, { cleared: false, slots: new Map([[other, Uint8Array.of(8)]]) })
    const undo = history.apply({ kind: 'edit', number: 0n, diff: edit })!
    await trie.apply(edit, history.at(0n))
    await commit(1n, (d) => {
      d.accounts.set(a, record(2n))
      d.storage.set(a, { cleared: true, slots: new Map([[slot, Uint8Array.of(5)]]) })
    })
    await commit(2n, (d) => d.accounts.set(a, null))

    const touched = createTouchedKeys()
    history.apply({ kind: 'rewind', number: 0n, undo: [{ number: 0n, undo }] }, touched)
    await trie.apply(history.restore(0n, touched), history.at(0n))
    expect(trie.root()).toEqual(atZero)
    expect(trie.root()).toEqual(await rootFromScratch([...history.entries()]))
  })

  test('a trie built in turns waits for its build, and takes the changes made to the state while it built', async () => {
    const history = createStateHistory()
    const genesis = createStateDiff()
    const addresses = Array.from({ length: 300 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as Hex)
    for (const address of addresses) genesis.accounts.set(address, record(1n))
    genesis.storage.set(addresses[0]!, { cleared: false, slots: new Map([[slot, Uint8Array.of(7)]]) })
    history.commit(0n, genesis)

    const trie = startStateTrie(history.entries())
    expect(() => trie.root()).toThrow(/still being built/)
    let built = false
    void trie.ready.then(() => (built = true))
    const proved = trie.prove(addresses[5]!, [])
    // One turn: the build has read the first accounts and not the last (300 of them are several turns' work).
    await yieldToEventLoop()
    expect(built).toBe(false)

    // Block 1 changes an account the build has read, one it has not, and adds one.
    const block1 = createStateDiff()
    block1.accounts.set(addresses[0]!, record(5n))
    block1.accounts.set(addresses[299]!, record(6n))
    block1.accounts.set(a, record(7n))
    block1.storage.set(addresses[0]!, { cleared: false, slots: new Map([[slot, Uint8Array.of(8)]]) })
    history.commit(1n, block1)
    const { root } = await trie.apply(block1, history.at(1n))
    expect(built).toBe(true)
    expect(root).toEqual(await rootFromScratch([...history.entries()]))
    expect((await proved).account.length).toBeGreaterThan(0)
  })

  test('a trie built in turns builds an account the state yields twice once, as first read (its change follows)', async () => {
    const first = record(1n)
    const trie = startStateTrie([
      [a, first, new Map()],
      [b, record(2n), new Map()],
      [a, record(9n), new Map()],
    ])
    await trie.ready
    expect(trie.root()).toEqual(
      await rootFromScratch([
        [a, first, new Map()],
        [b, record(2n), new Map()],
      ]),
    )
  })

  test('a trie whose build failed is built again by a rebuild (a reset), which is how a node gets it back', async () => {
    const trie = startStateTrie(
      (function* (): Generator<[Hex, AccountRecord, Map<Hex, Uint8Array>]> {
        yield [a, record(1n), new Map()]
        throw new Error('the state could not be read')
      })(),
    )
    await expect(trie.ready).rejects.toThrow('the state could not be read')
    await trie.rebuild([[b, record(2n), new Map()]])
    await trie.ready
    expect(trie.root()).toEqual(await rootFromScratch([[b, record(2n), new Map()]]))
  })
})
