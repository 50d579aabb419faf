/**
 * A fork's upstream state as the chain's history reads it, beneath every local write (state/history.ts): accounts,
 * slots and code at the fork block, each fetched once from the upstream source (upstream.ts) and then held for the
 * chain's life. A read of what is held answers at once; a read of what is not throws a StateMiss (state/miss.ts) that
 * has started its fetch, so the reads of one turn go out in one batch.
 */
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes, bytesToHex, hexToBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { StateMiss } from '../state/miss.ts'
import { toWord } from './upstream.ts'

import type { AccountRecord, StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { ForkBlock, UpstreamAccount, UpstreamState } from './upstream.ts'

/** The upstream's state at the fork block, read synchronously: what is not held yet throws a StateMiss. */
export type RemoteState = StateReader & { readonly fork: ForkBlock; readonly waits: true }

export function createRemoteState(upstream: UpstreamState): RemoteState {
  /** `null`: the upstream has no such account (nothing in it: EIP-161's empty account). */
  const accounts = new Map<Hex, AccountRecord | null>()
  /** By address, then slot (32 bytes of hex); values with leading zeros stripped, empty when zero. */
  const storage = new Map<Hex, Map<Hex, Uint8Array>>()
  const codes = new Map<Hex, Uint8Array>()
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

  function hold(address: Hex, account: UpstreamAccount) {
    if (account.balance === 0n && account.nonce === 0n && account.code === '0x') {
      accounts.set(address, null)
      return
    }
    let codeHash = KECCAK256_NULL
    if (account.code !== '0x') {
      const code = hexToBytes(account.code)
      codeHash = keccak256(code)
      codes.set(bytesToHex(codeHash) as Hex, code)
    }
    // The upstream's storage root is not asked for: nothing local reads it (sealed roots cover local writes only).
    accounts.set(address, { nonce: account.nonce, balance: account.balance, codeHash, storageRoot: KECCAK256_RLP })
  }

  return {
    fork: upstream.fork,
    waits: true,
    account(address) {
      const held = accounts.get(address)
      if (held !== undefined) return held ?? undefined
      throw miss(`account ${address}`, () => upstream.account(address).then((account) => hold(address, account)))
    },
    storage(address, slot) {
      const word = slot.length === 66 ? slot : toWord(slot)
      const held = storage.get(address)?.get(word)
      if (held !== undefined) return held
      throw miss(`storage ${address} ${word}`, () =>
        upstream.storage(address, word).then((value) => {
          let slots = storage.get(address)
          if (slots === undefined) storage.set(address, (slots = new Map()))
          slots.set(word, bigIntToUnpaddedBytes(value))
        }),
      )
    },
    // Code is fetched with its account, which is read first: a hash the upstream's accounts never named is unknown.
    code: (codeHash) => codes.get(codeHash),
  }
}
