import { Account, KECCAK256_NULL, bytesToHex, equalsBytes, unpadBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { StateMiss, untilFetched } from './miss.ts'
import { createOverlay } from './overlay.ts'
import { createStateDiff, mergeDiff } from './types.ts'

import type { AccountFields, StateManagerInterface } from '@ethereumjs/common'
import type { AccessRecorder } from './accesses.ts'
import type { Address } from '@ethereumjs/util'
import type { AccountRecord, StateDiff, StateReader } from './types.ts'
import type { Hex } from '../../hex.ts'

const EMPTY = new Uint8Array(0)

function toRecord(account: Account): AccountRecord {
  return {
    nonce: account.nonce,
    balance: account.balance,
    codeHash: account.codeHash,
    storageRoot: account.storageRoot,
  }
}

/** What one write to one of the diff's maps replaced (undefined: nothing), so that a revert can put it back. */
interface Undo {
  map: Map<Hex, unknown>
  key: Hex
  previous: unknown
}

/**
 * The EVM's view of state: a read-only base (a sealed block or the pending flashblocks) under one diff of every
 * write since the last reset, with an undo log for the open checkpoints, as geth's StateDB journals its writes. A
 * read is one map lookup before the base, however deep the calls; a revert replays the undo log back to the
 * checkpoint. Nothing here touches a trie; `getStateRoot` is delegated to the owner, which knows the base's
 * history.
 */
export class FlatStateManager implements StateManagerInterface {
  base: StateReader
  private diff: StateDiff = createStateDiff()
  private undo: Undo[] = []
  /** Length of `undo` at each open checkpoint, innermost last. */
  private checkpoints: number[] = []
  /** Set by the block producer around a transaction it includes, to see what the run accessed (accesses.ts). */
  recorder: AccessRecorder | undefined
  /** Set by the block producer, the only owner that knows the trie. */
  computeStateRoot: ((writes: StateDiff) => Promise<Uint8Array>) | undefined
  /**
   * Replaced, never cleared. The VM outlives thousands of runs, so this map lives in the old generation, and V8
   * clears an old map by giving it a new table there while the discarded table keeps its entries. Until the next
   * full collection those dead entries held each run's keys and values through every scavenge, and promoted them:
   * about 60 kB per scavenge under eth_estimateGas load (--trace-gc-nvp). A new map starts young and dies young.
   */
  private original = new Map<string, Uint8Array>()
  /**
   * The last storage key turned into hex, with its hex. The EVM hands one SLOAD's or SSTORE's reads and write the
   * same array (the patched @ethereumjs/evm makes one per key, and never writes to it).
   */
  private lastKey: Uint8Array | undefined
  private lastKeyHex: Hex = '0x'

  private keyHex(key: Uint8Array): Hex {
    if (key !== this.lastKey) {
      this.lastKey = key
      this.lastKeyHex = bytesToHex(key) as Hex
    }
    return this.lastKeyHex
  }

  readonly originalStorageCache = {
    /** The slot's value before the current transaction, as EIP-2200 / EIP-3529 gas rules need it. */
    get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => {
      try {
        return this.getOriginalStorageSync(address, key)
      } catch (error) {
        return this.afterMiss(error, () => this.getOriginalStorageSync(address, key))
      }
    },
    clear: (): void => {
      this.original = new Map()
    },
  }

  constructor(base: StateReader) {
    this.base = base
  }

  /** Starts over on another base, dropping every write. */
  reset(base: StateReader): void {
    this.base = base
    this.diff = createStateDiff()
    this.undo = []
    this.checkpoints = []
    this.original = new Map()
  }

  /**
   * Every write since the last reset or publish. The diff is the live one: it changes with the next write, and is
   * the caller's to keep only once the state manager has been reset.
   */
  writes(): StateDiff {
    return this.diff
  }

  /**
   * Moves every write into the base as one frozen diff and returns it. Open checkpoints stay open, so one opened by
   * the block builder stays balanced, but none of them can undo what was published. Only call between
   * transactions.
   */
  publish(): StateDiff {
    const diff = this.diff
    this.diff = createStateDiff()
    this.undo = []
    this.checkpoints = this.checkpoints.map(() => 0)
    this.base = createOverlay(diff, this.base)
    return diff
  }

  /** The state with every write so far, as a reader that no recorder sees. */
  current(): StateReader {
    return createOverlay(this.diff, this.base)
  }

  /** Lays `diff` over the base as if it had been written and published; only between transactions. */
  publishDiff(diff: StateDiff): void {
    this.base = createOverlay(diff, this.base)
  }

  /** An account's nonce with every write so far, published or not. */
  nonce(address: Hex): bigint {
    return this.readAccount(address)?.nonce ?? 0n
  }

  /** Whether a write must be remembered: only an open checkpoint can be reverted. */
  private get journaling(): boolean {
    return this.checkpoints.length > 0
  }

  private readAccount(address: Hex): AccountRecord | undefined {
    const written = this.diff.accounts.get(address)
    const account = written === null ? undefined : (written ?? this.base.account(address))
    this.recorder?.account(address, account)
    return account
  }

  private readStorage(address: string, slot: string): Uint8Array {
    const value = this.storageValue(address as Hex, slot as Hex)
    this.recorder?.slot(address as Hex, slot as Hex, value)
    return value
  }

  private storageValue(address: Hex, slot: Hex): Uint8Array {
    const storage = this.diff.storage.get(address)
    if (storage !== undefined) {
      const value = storage.slots.get(slot)
      if (value !== undefined) return value
      if (storage.cleared) return EMPTY
    }
    return this.base.storage(address, slot)
  }

  private readCode(codeHash: Uint8Array): Uint8Array {
    if (equalsBytes(codeHash, KECCAK256_NULL)) return EMPTY
    const hash = bytesToHex(codeHash) as Hex
    return this.diff.code.get(hash) ?? this.base.code(hash) ?? EMPTY
  }

  /** Every write to the diff goes through here, to be journaled while a checkpoint is open. */
  private write<V>(map: Map<Hex, V>, key: Hex, value: V): void {
    if (this.journaling) this.undo.push({ map, key, previous: map.get(key) })
    map.set(key, value)
  }

  private writeAccount(address: Hex, account: AccountRecord | null): void {
    this.write(this.diff.accounts, address, account)
  }

  /**
   * Shows a recorder the account before a write changes it, which it would otherwise see only after. Awaited, so
   * that on a fork a value not fetched yet is waited for (miss.ts) rather than failing the write.
   */
  private async beforeWrite(address: Address): Promise<void> {
    if (this.recorder !== undefined) await this.getAccount(address)
  }

  /** Replaces the account's storage diff with a wiped one. */
  private wipeStorage(address: Hex): void {
    this.write(this.diff.storage, address, { cleared: true, slots: new Map() })
  }

  // Every read and write of local state is a map operation, so those SLOAD and SSTORE need are also offered without
  // a promise. The patched @ethereumjs/evm finds getStorageSync and runs both opcodes without awaiting: 3.7 µs (6 %)
  // less CPU per ERC20 estimate. The interface's async methods give the same answers, and wait for a fork's upstream
  // where a read misses (miss.ts).

  /**
   * A sender with code: an impersonated contract, or the `from` of eth_call, which geth lets be one. runTx refuses a
   * sender with code (EIP-3607), as it must for a signed transaction; for this one, reads of the account show no
   * code until runTx first writes the sender back (its fee), and until the run ends a write of the sender without
   * code gets its code back, since runTx writes back the account object it read. Set around one runTx.
   */
  get codeHiddenFor(): Hex | undefined {
    return this.hidden?.address
  }

  set codeHiddenFor(address: Hex | undefined) {
    this.hidden = address === undefined ? undefined : { address, shown: false }
  }

  private hidden: { address: Hex; shown: boolean } | undefined

  getAccountSync(address: Address): Account | undefined {
    const key = address.toString() as Hex
    const record = this.readAccount(key)
    if (record === undefined) return undefined
    const codeHash = this.hidden !== undefined && key === this.hidden.address && !this.hidden.shown ? KECCAK256_NULL : record.codeHash
    return new Account(record.nonce, record.balance, record.storageRoot, codeHash)
  }

  /**
   * Offered, and the EVM's SLOAD and SSTORE then run without awaiting, only on a base whose reads never wait: a read
   * of a fork's upstream state must be able to.
   */
  get getStorageSync(): ((address: Address, key: Uint8Array) => Uint8Array) | undefined {
    return this.base.waits === true ? undefined : this.storageNow
  }

  private readonly storageNow = (address: Address, key: Uint8Array): Uint8Array => this.readStorage(address.toString(), this.keyHex(key))

  /** The slot's value before the current transaction, as EIP-2200 / EIP-3529 gas rules need it. */
  getOriginalStorageSync(address: Address, key: Uint8Array): Uint8Array {
    const slot = this.keyHex(key)
    const id = `${address.toString()}${slot}`
    let value = this.original.get(id)
    if (value === undefined) {
      value = this.readStorage(address.toString(), slot)
      this.original.set(id, value)
    }
    return value
  }

  putStorageSync(address: Address, key: Uint8Array, value: Uint8Array): void {
    const account = address.toString()
    // A recorder sees the slot before the write (putStorage has waited for it on a fork).
    if (this.recorder !== undefined) this.readStorage(account, this.keyHex(key))
    let storage = this.diff.storage.get(account)
    if (storage === undefined) this.write(this.diff.storage, account, (storage = { cleared: false, slots: new Map() }))
    this.write(storage.slots, this.keyHex(key), unpadBytes(value))
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    try {
      return this.getAccountSync(address)
    } catch (error) {
      return this.afterMiss(error, () => this.getAccountSync(address))
    }
  }

  /** Where a read missed a fork's upstream state: waits for what the miss waits for, then reads again (miss.ts). */
  private async afterMiss<T>(error: unknown, read: () => T): Promise<T> {
    if (!(error instanceof StateMiss)) throw error
    await error.fetched
    return untilFetched(read)
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address)
    await this.beforeWrite(address)
    const key = address.toString() as Hex
    let record = toRecord(account)
    if (this.hidden !== undefined && key === this.hidden.address) {
      this.hidden.shown = true
      // runTx read the sender before it writes it back, so its account is here.
      if (equalsBytes(record.codeHash, KECCAK256_NULL)) record = { ...record, codeHash: this.readAccount(key)?.codeHash ?? record.codeHash }
    }
    this.writeAccount(key, record)
  }

  async deleteAccount(address: Address): Promise<void> {
    await this.beforeWrite(address)
    const key = address.toString()
    this.writeAccount(key, null)
    this.wipeStorage(key)
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account()
    if (fields.nonce !== undefined) account.nonce = fields.nonce
    if (fields.balance !== undefined) account.balance = fields.balance
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash
    if (fields.storageRoot !== undefined) account.storageRoot = fields.storageRoot
    await this.putAccount(address, account)
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code)
    if (code.length > 0) {
      this.write(this.diff.code, bytesToHex(codeHash) as Hex, code)
    }
    await this.modifyAccountFields(address, { codeHash })
  }

  async getCode(address: Address): Promise<Uint8Array> {
    try {
      return this.codeNow(address)
    } catch (error) {
      return this.afterMiss(error, () => this.codeNow(address))
    }
  }

  private codeNow(address: Address): Uint8Array {
    const account = this.readAccount(address.toString())
    return account === undefined ? EMPTY : this.readCode(account.codeHash)
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    try {
      return this.storageNow(address, key)
    } catch (error) {
      return this.afterMiss(error, () => this.storageNow(address, key))
    }
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    // The slot before the write, waited for on a fork, so that putStorageSync's own look at it cannot miss.
    if (this.recorder !== undefined) await this.getStorage(address, key)
    this.putStorageSync(address, key, value)
  }

  async clearStorage(address: Address): Promise<void> {
    await this.beforeWrite(address)
    this.wipeStorage(address.toString())
  }

  /** Checkpoints open now: what revertTo goes back to. */
  get depth(): number {
    return this.checkpoints.length
  }

  /**
   * Reverts every checkpoint opened since `depth`. A run that throws out of the EVM (a fork's upstream failing a
   * read mid-call) leaves the checkpoints of the calls it was in open, and runTx reverts only the innermost: the
   * owner goes back to where the run began.
   */
  async revertTo(depth: number): Promise<void> {
    while (this.checkpoints.length > depth) await this.revert()
  }

  async checkpoint(): Promise<void> {
    this.checkpoints.push(this.undo.length)
  }

  async commit(): Promise<void> {
    this.checkpoints.pop()
    // Outside every checkpoint nothing can be reverted any more.
    if (this.checkpoints.length === 0) this.undo = []
  }

  async revert(): Promise<void> {
    const mark = this.checkpoints.pop() ?? 0
    for (let i = this.undo.length - 1; i >= mark; i--) {
      const { map, key, previous } = this.undo[i]!
      if (previous === undefined) map.delete(key)
      else map.set(key, previous)
    }
    this.undo.length = mark
  }

  async getStateRoot(): Promise<Uint8Array> {
    if (this.computeStateRoot === undefined) {
      throw new Error('state roots are computed only by the block producer')
    }
    return this.computeStateRoot(this.writes())
  }

  async setStateRoot(): Promise<void> {
    throw new Error('flat state is positioned by block, not by state root')
  }

  async hasStateRoot(): Promise<boolean> {
    return false
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    const copy = new FlatStateManager(this.base)
    copy.computeStateRoot = this.computeStateRoot
    mergeDiff(copy.diff, this.diff)
    return copy
  }
}
