/**
 * A fork's upstream state as the chain's history reads it, beneath every local write (state/history.ts): accounts,
 * slots and code at the fork block, each fetched once from a source and then held for the chain's life. A read of
 * what is held answers at once; a read of what is not throws a StateMiss (state/miss.ts) that has started its fetch,
 * so the reads of one turn go out in one batch.
 *
 * The main thread's source is the upstream (upstream.ts); an execution worker's is the main thread's copy
 * (servedBy), so every thread's fetches are the main thread's, merged and fetched once.
 */
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes, bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { StateMiss, untilFetched } from '../state/miss.ts'
import { toWord } from './upstream.ts'

import type { AccountRecord, StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { UpstreamAccount, UpstreamState, WarmCall } from './upstream.ts'

/** The upstream's state at the fork block, read synchronously: what is not held yet throws a StateMiss. */
export type RemoteState = StateReader & {
  readonly waits: true
  /**
   * Fetches at once every account and slot `call` reads at the fork block, where the source can tell them (the
   * upstream's trace of the call), and holds them: a run's reads then miss once rather than one round trip each.
   * `missed`: the StateMiss key that set it off, where the warming is for nothing once that is held here.
   * What it brought; nothing where the source cannot tell.
   */
  warm(call: WarmCall, missed?: string): Promise<Warmed>
}

/** An account as a source gives it: null when the upstream has none (EIP-161's empty account), and its code. */
export type HeldAccount = { account: AccountRecord | null; code?: Uint8Array }

/** What a warming brought: accounts, and slots (by account; values with leading zeros stripped, empty when zero). */
export type Warmed = { accounts: [Hex, HeldAccount][]; slots: [Hex, Hex, Uint8Array][] }

const NOTHING_WARMED: Warmed = { accounts: [], slots: [] }

/** Where a RemoteState fetches what it does not hold. Slots are 32 bytes of lowercase hex. */
export type RemoteSource = {
  account(address: Hex): Promise<HeldAccount>
  /** The slot's value with leading zeros stripped; empty when zero. */
  storage(address: Hex, slot: Hex): Promise<Uint8Array>
  /**
   * Code by its hash, where the source holds code apart from accounts (the main thread, for a worker whose history
   * names code the upstream deployed); a source without it has code only with its accounts.
   */
  code?(codeHash: Hex): Promise<Uint8Array | undefined>
  /** Every account and slot `call` reads at the fork block, with their values, where the source can tell them. */
  warm?(call: WarmCall, missed?: string): Promise<Warmed>
  /** What the source keeps at hand (the main thread's cache file), read without waiting. */
  kept?: { account(address: Hex): HeldAccount | undefined; storage(address: Hex, slot: Hex): Uint8Array | undefined }
}

export function createRemoteState(source: RemoteSource): RemoteState {
  const accounts = new Map<Hex, AccountRecord | null>()
  /** By address, then slot; values with leading zeros stripped, empty when zero. */
  const storage = new Map<Hex, Map<Hex, Uint8Array>>()
  const codes = new Map<Hex, Uint8Array>()
  /** Code hashes the source does not hold. */
  const unknownCode = new Set<Hex>()
  /** Fetches under way, by key: a read that misses again waits for the same one. */
  const fetching = new Map<string, Promise<void>>()

  function miss(key: string, fetch: () => Promise<void>): StateMiss {
    let fetched = fetching.get(key)
    if (fetched === undefined) {
      fetched = fetch().finally(() => fetching.delete(key))
      fetching.set(key, fetched)
    }
    return new StateMiss(key, fetched)
  }

  function hold(address: Hex, { account, code }: HeldAccount) {
    accounts.set(address, account)
    if (account !== null && code !== undefined) codes.set(bytesToHex(account.codeHash) as Hex, code)
  }

  function holdSlot(address: Hex, word: Hex, value: Uint8Array) {
    let slots = storage.get(address)
    if (slots === undefined) storage.set(address, (slots = new Map()))
    slots.set(word, value)
  }

  /** Whether a read of the miss `key` (an account or a slot) would miss still: its fetch goes on. */
  function missing(key: string): boolean {
    const [kind, address, slot] = key.split(' ') as [string, Hex, Hex]
    try {
      if (kind === 'account') remote.account(address)
      else if (kind === 'storage') remote.storage(address, slot)
      return false
    } catch (error) {
      if (error instanceof StateMiss) return true
      throw error
    }
  }

  const remote: RemoteState = {
    waits: true,
    account(address) {
      let held = accounts.get(address)
      if (held === undefined) {
        const kept = source.kept?.account(address)
        if (kept !== undefined) hold(address, kept)
        held = kept?.account
      }
      if (held !== undefined) return held ?? undefined
      throw miss(`account ${address}`, () => source.account(address).then((fetched) => hold(address, fetched)))
    },
    storage(address, slot) {
      const word = slot.length === 66 ? slot : toWord(slot)
      let held = storage.get(address)?.get(word)
      if (held === undefined) {
        held = source.kept?.storage(address, word)
        if (held !== undefined) holdSlot(address, word, held)
      }
      if (held !== undefined) return held
      throw miss(`storage ${address} ${word}`, () => source.storage(address, word).then((value) => holdSlot(address, word, value)))
    },
    // Code comes with its account, which is read first; a local record may name upstream code by hash alone, which
    // a source that holds code by hash gives (once: what it does not hold is unknown, and stays so).
    code(codeHash) {
      const held = codes.get(codeHash)
      if (held !== undefined || source.code === undefined || unknownCode.has(codeHash)) return held
      throw miss(`code ${codeHash}`, () =>
        source.code!(codeHash).then((code) => {
          if (code === undefined) unknownCode.add(codeHash)
          else codes.set(codeHash, code)
        }),
      )
    },
    warm(call, missed) {
      // A run on another thread missed what this one holds (or keeps in its cache file): nothing to ask.
      if (source.warm === undefined || (missed !== undefined && !missing(missed))) return Promise.resolve(NOTHING_WARMED)
      return source.warm(call, missed).then((warmed) => {
        // What is held already stays: the source answers for the same block either way.
        for (const [address, held] of warmed.accounts) if (!accounts.has(address)) hold(address, held)
        for (const [address, word, value] of warmed.slots) if (storage.get(address)?.has(word) !== true) holdSlot(address, word, value)
        return warmed
      })
    },
  }
  return remote
}

/** The upstream at the fork block as a source: its balance, nonce and code as an account record. */
export function upstreamSource(upstream: UpstreamState): RemoteSource {
  return {
    account: async (address) => heldAccount(await upstream.account(address)),
    storage: async (address, slot) => bigIntToUnpaddedBytes(await upstream.storage(address, slot)),
    kept: {
      account(address) {
        const kept = upstream.kept.account(address)
        return kept === undefined ? undefined : heldAccount(kept)
      },
      storage(address, slot) {
        const kept = upstream.kept.storage(address, slot)
        return kept === undefined ? undefined : bigIntToUnpaddedBytes(kept)
      },
    },
    async warm(call) {
      const { accounts, slots } = await upstream.prestate(call)
      return {
        accounts: accounts.map(([address, account]) => [address, heldAccount(account)]),
        slots: slots.map(([address, slot, value]) => [address, slot, bigIntToUnpaddedBytes(value)]),
      }
    },
  }
}

function heldAccount({ balance, nonce, code }: UpstreamAccount): HeldAccount {
  if (balance === 0n && nonce === 0n && code === '0x') return { account: null }
  const bytes = code === '0x' ? undefined : hexToBytes(code)
  const codeHash = bytes === undefined ? KECCAK256_NULL : keccak256(bytes)
  // The upstream's storage root is not asked for: nothing local reads it (sealed roots cover local writes only).
  return { account: { nonce, balance, codeHash, storageRoot: KECCAK256_RLP }, code: bytes }
}

/** Another thread's source: what `remote` holds, or fetches for it (and holds for every thread after). */
export function servedBy(remote: RemoteState): RemoteSource {
  return {
    async account(address) {
      const account = (await untilFetched(() => remote.account(address))) ?? null
      if (account === null || equalsBytes(account.codeHash, KECCAK256_NULL)) return { account }
      return { account, code: remote.code(bytesToHex(account.codeHash) as Hex) }
    },
    storage: (address, slot) => untilFetched(() => remote.storage(address, slot)),
    code: async (codeHash) => remote.code(codeHash),
    warm: (call, missed) => remote.warm(call, missed),
  }
}
