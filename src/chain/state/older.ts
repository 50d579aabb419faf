// State older than what a history holds in memory. A chain that restarts from its store loads only each key's newest
// write (storage/olderRows.ts): the blocks before it are read from the store when a request names one. The main
// thread reads the store itself; an execution worker asks the main thread, one key at a time, and waits as for a
// fork's upstream state (miss.ts).
import { StateMiss } from './miss.ts'

import type { AccountRecord, StateDiff } from './types.ts'
import type { Hex } from '../../hex.ts'

/** Each key's newest write up to a block, grouped by the block that wrote it, oldest first: what a history loads. */
export type NewestWrites = [block: number, diff: StateDiff][]

/**
 * The state of blocks before a history's horizon, as the chain itself wrote it: `undefined` where no block up to
 * `block` wrote the key (a fork's upstream state lies beneath), `null` for an account deleted.
 */
export type OlderState = {
  /** Whether a read may throw a StateMiss: a worker's, which waits for the main thread's answer. */
  readonly waits: boolean
  account(address: Hex, block: number): AccountRecord | null | undefined
  storage(address: Hex, slot: Hex, block: number): Uint8Array | undefined
  /** Every key's newest write up to `block`: the state of an old block whole (a proof), or a rewind's reload. */
  newest(block: number): NewestWrites
  /** Drops what it keeps of the store's rows: a rewind below the horizon changed them. */
  forget(): void
}

/** A worker's question to the main thread: a key's value at a block before the horizon, or that block's whole state. */
export type OlderRequest = ['olderAccount', Hex, number] | ['olderStorage', Hex, Hex, number] | ['olderNewest', number]

/** Answers a worker keeps: each is a key at one block, and a rewind below the horizon drops them all. */
const KEPT_ANSWERS = 4096

/**
 * A worker's older state: each read it has no answer for throws a StateMiss whose fetch asks the main thread, and the
 * run reads again once the answer is here (untilFetched). A whole old state (a simulation's base block's trie) too.
 */
export function createFetchedOlderState(ask: (request: OlderRequest) => Promise<unknown>): OlderState {
  const answers = new Map<string, unknown>()
  /** Counts forget(): an answer asked for before one is not kept, as it may be of rows since dropped. */
  let generation = 0
  function read<T>(key: string, request: OlderRequest): T {
    if (answers.has(key)) return answers.get(key) as T
    const asked = generation
    const fetched = ask(request).then((value) => {
      if (asked !== generation) return
      if (answers.size >= KEPT_ANSWERS) answers.delete(answers.keys().next().value!)
      answers.set(key, value)
    })
    throw new StateMiss(key, fetched)
  }
  return {
    waits: true,
    account: (address, block) => read(`account ${address} ${block}`, ['olderAccount', address, block]),
    storage: (address, slot, block) => read(`storage ${address} ${slot} ${block}`, ['olderStorage', address, slot, block]),
    newest: (block) => read(`newest ${block}`, ['olderNewest', block]),
    forget() {
      generation++
      answers.clear()
    },
  }
}
