/**
 * What each transaction of a flashblock read and changed, as Base's flashblock access list (FAL) carries it in the
 * stream: EIP-7928's block access list, per flashblock (docs/flashblocks-stream.md#state-changes).
 *
 * The state manager shows a recorder every account and slot a run reads or writes; the recorder keeps the first
 * value it saw of each, which is the value before the transaction, since a read or write comes before any write.
 * When the transaction ends, each is compared with its value now: a slot whose value moved is a storage change, one
 * read (or written back unchanged) a storage read; an account's balance, nonce and code are changes where they
 * moved; an account only read is listed with no changes.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { EMPTY_ACCOUNT } from './types.ts'

import type { Hex } from '../../hex.ts'
import type { AccountRecord, StateReader } from './types.ts'

/** One account's accesses in a flashblock; indices are block access indices (0 before the first transaction, i + 1 for transaction i). */
export type AccountAccess = {
  address: Hex
  /** By slot (32 bytes), ascending: each change's index and the slot's value after it (stripped of leading zeros). */
  storageChanges: [slot: Hex, changes: [index: number, value: Uint8Array][]][]
  /** Slots read and never changed in the flashblock, ascending. */
  storageReads: Hex[]
  balanceChanges: [index: number, balance: bigint][]
  nonceChanges: [index: number, nonce: bigint][]
  codeChanges: [index: number, code: Uint8Array][]
}

/** The accesses of a flashblock: where its transactions start and end in the block (end exclusive), and each account's. */
export type FlashblockAccessList = { minTxIndex: number; maxTxIndex: number; accounts: AccountAccess[] }

type Entry = {
  storage: Map<Hex, [number, Uint8Array][]>
  reads: Set<Hex>
  balance: [number, bigint][]
  nonce: [number, bigint][]
  code: [number, Uint8Array][]
}

/** The accesses of one flashblock so far, by address. */
export class FlashblockAccesses {
  private readonly entries = new Map<Hex, Entry>()

  entry(address: Hex): Entry {
    let entry = this.entries.get(address)
    if (entry === undefined) this.entries.set(address, (entry = { storage: new Map(), reads: new Set(), balance: [], nonce: [], code: [] }))
    return entry
  }

  /** Every account's accesses in EIP-7928's order: addresses and slots ascending, indices ascending. */
  list(): AccountAccess[] {
    return [...this.entries]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([address, entry]) => ({
        address,
        storageChanges: [...entry.storage].sort(([a], [b]) => (a < b ? -1 : 1)),
        storageReads: [...entry.reads].filter((slot) => !entry.storage.has(slot)).sort(),
        balanceChanges: entry.balance,
        nonceChanges: entry.nonce,
        codeChanges: entry.code,
      }))
  }
}

/** What one run read and wrote first, with the values it found: set on the state manager around a transaction. */
export class AccessRecorder {
  private readonly accounts = new Map<Hex, AccountRecord | undefined>()
  private readonly slots = new Map<Hex, Map<Hex, Uint8Array>>()

  account(address: Hex, value: AccountRecord | undefined): void {
    if (!this.accounts.has(address)) this.accounts.set(address, value)
  }

  slot(address: Hex, slot: Hex, value: Uint8Array): void {
    let slots = this.slots.get(address)
    if (slots === undefined) this.slots.set(address, (slots = new Map()))
    if (!slots.has(slot)) slots.set(slot, value)
  }

  /**
   * Adds what the run saw to `into` at block access index `index`, comparing with `now`, and starts over. `unlisted`:
   * an address left out (the system calls' caller).
   */
  end(index: number, now: StateReader, into: FlashblockAccesses, unlisted?: Hex): void {
    if (unlisted !== undefined) {
      this.accounts.delete(unlisted)
      this.slots.delete(unlisted)
    }
    for (const [address, before] of this.accounts) {
      const entry = into.entry(address)
      const after = now.account(address)
      const was = before ?? EMPTY_ACCOUNT
      const is = after ?? EMPTY_ACCOUNT
      if (is.balance !== was.balance) entry.balance.push([index, is.balance])
      // A destroyed account keeps only its balance change (EIP-7928).
      if (after === undefined) continue
      if (is.nonce !== was.nonce) entry.nonce.push([index, is.nonce])
      // Code deployed, or an EIP-7702 delegation set or cleared.
      if (!equalsBytes(is.codeHash, was.codeHash)) entry.code.push([index, now.code(bytesToHex(is.codeHash) as Hex) ?? new Uint8Array()])
    }
    for (const [address, slots] of this.slots) {
      const entry = into.entry(address)
      const destroyed = now.account(address) === undefined
      for (const [slot, before] of slots) {
        const after = now.storage(address, slot)
        if (destroyed || equalsBytes(after, before)) {
          entry.reads.add(slot)
          continue
        }
        let changes = entry.storage.get(slot)
        if (changes === undefined) entry.storage.set(slot, (changes = []))
        changes.push([index, after])
      }
    }
    this.discard()
  }

  /** Forgets what the run saw: it did not become part of the block. */
  discard(): void {
    this.accounts.clear()
    this.slots.clear()
  }
}
