import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

const EMPTY = new Uint8Array(0)

/** The values one key took, by the block that wrote them, oldest first. */
type Versions<T> = { blocks: number[]; values: T[] }

type AccountStorage = { clears: number[]; slots: Map<Hex, Versions<Uint8Array>> }

/** Index of the last entry written at or before `block`, or -1. Reads at the head hit the first test. */
function lastAtOrBefore(blocks: number[], block: number): number {
  let hi = blocks.length - 1
  if (hi < 0 || blocks[hi]! <= block) return hi
  let lo = 0
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (blocks[mid]! <= block) lo = mid
    else hi = mid - 1
  }
  return blocks[lo]! <= block ? lo : -1
}

function record<T>(versions: Versions<T> | undefined, block: number, value: T): Versions<T> {
  if (versions === undefined) return { blocks: [block], values: [value] }
  const last = versions.blocks.length - 1
  if (versions.blocks[last] === block) versions.values[last] = value
  else {
    versions.blocks.push(block)
    versions.values.push(value)
  }
  return versions
}

/**
 * Every sealed block's state, readable forever (nothing is pruned): one flat map per kind of key, each key
 * holding the values it took by block. A reader pinned to block N ignores everything written after N, so a
 * read never sees a half-sealed block.
 */
/** The whole history as plain maps, for another thread to start from (structured-cloneable). */
export type HistorySnapshot = {
  accounts: Map<Hex, Versions<AccountRecord | null>>
  storage: Map<Hex, AccountStorage>
  codes: Map<Hex, Uint8Array>
}

export type StateHistory = {
  /** The state at the end of block `number`. */
  at(number: bigint): StateReader
  /** Records the writes of block `number`. Blocks are committed in ascending order. */
  commit(number: bigint, diff: StateDiff): void
  /**
   * Every live account at the end of block `number` (the newest block by default), with its storage: what the state
   * trie of that block is built from.
   */
  entries(number?: bigint): Iterable<[Hex, AccountRecord, Map<Hex, Uint8Array>]>
  /** The maps themselves, not a copy: post them (which copies) before the next commit. */
  snapshot(): HistorySnapshot
}

export function createStateHistory(from?: HistorySnapshot): StateHistory {
  const accounts = from?.accounts ?? new Map<Hex, Versions<AccountRecord | null>>()
  const storage = from?.storage ?? new Map<Hex, AccountStorage>()
  const codes = from?.codes ?? new Map<Hex, Uint8Array>()

  function readStorage(address: Hex, slot: Hex, block: number): Uint8Array {
    const account = storage.get(address)
    if (account === undefined) return EMPTY
    const versions = account.slots.get(slot)
    if (versions === undefined) return EMPTY
    const index = lastAtOrBefore(versions.blocks, block)
    if (index < 0) return EMPTY
    const cleared = lastAtOrBefore(account.clears, block)
    // A clear in the same block happened before that block's writes (see StorageDiff).
    if (cleared >= 0 && account.clears[cleared]! > versions.blocks[index]!) return EMPTY
    return versions.values[index]!
  }

  return {
    at(number) {
      const block = Number(number)
      return {
        origin: { kind: 'block', number },
        account(address) {
          const versions = accounts.get(address)
          if (versions === undefined) return undefined
          const index = lastAtOrBefore(versions.blocks, block)
          return index < 0 ? undefined : (versions.values[index] ?? undefined)
        },
        storage: (address, slot) => readStorage(address, slot, block),
        code: (codeHash) => codes.get(codeHash),
      }
    },

    commit(number, diff) {
      const block = Number(number)
      for (const [hash, code] of diff.code) codes.set(hash, code)
      for (const [address, account] of diff.accounts) {
        accounts.set(address, record(accounts.get(address), block, account))
      }
      for (const [address, written] of diff.storage) {
        let account = storage.get(address)
        if (account === undefined) storage.set(address, (account = { clears: [], slots: new Map() }))
        if (written.cleared && account.clears.at(-1) !== block) account.clears.push(block)
        for (const [slot, value] of written.slots) {
          account.slots.set(slot, record(account.slots.get(slot), block, value))
        }
      }
    },

    snapshot: () => ({ accounts, storage, codes }),

    *entries(number) {
      const block = number === undefined ? Number.MAX_SAFE_INTEGER : Number(number)
      for (const [address, versions] of accounts) {
        const index = lastAtOrBefore(versions.blocks, block)
        const account = index < 0 ? undefined : versions.values[index]
        if (account == null) continue
        const slots = new Map<Hex, Uint8Array>()
        for (const slot of storage.get(address)?.slots.keys() ?? []) {
          const value = readStorage(address, slot, block)
          if (value.length > 0) slots.set(slot, value)
        }
        yield [address, account, slots]
      }
    },
  }
}
