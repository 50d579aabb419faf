import {
  Account,
  KECCAK256_NULL,
  bytesToHex,
  equalsBytes,
  unpadBytes,
} from '@ethereumjs/util'

import { keccak256 } from '../keccak.ts'
import { createOverlay } from './overlay.ts'
import { createStateDiff, mergeDiff } from './types.ts'

import type { AccountFields, StateManagerInterface } from '@ethereumjs/common'
import type { Address } from '@ethereumjs/util'
import type { AccountRecord, Hex, StateDiff, StateReader } from './types.ts'

const EMPTY = new Uint8Array(0)

function toRecord(account: Account): AccountRecord {
  return {
    nonce: account.nonce,
    balance: account.balance,
    codeHash: account.codeHash,
    storageRoot: account.storageRoot,
  }
}

/**
 * The EVM's view of state: a read-only base (a sealed block or the pending flashblocks) under a journal of
 * diffs, one per open checkpoint. Nothing here touches a trie; `getStateRoot` is delegated to the owner, which
 * knows the base's history.
 */
export class FlatStateManager implements StateManagerInterface {
  base: StateReader
  private layers: StateDiff[] = [createStateDiff()]
  /** Set by the block producer, the only owner that knows the trie. */
  computeStateRoot: ((writes: StateDiff) => Promise<Uint8Array>) | undefined
  private readonly original = new Map<string, Uint8Array>()

  readonly originalStorageCache = {
    /** The slot's value before the current transaction, as EIP-2200 / EIP-3529 gas rules need it. */
    get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => {
      const id = `${address.toString()}${bytesToHex(key)}`
      let value = this.original.get(id)
      if (value === undefined) {
        value = this.readStorage(address.toString(), bytesToHex(key))
        this.original.set(id, value)
      }
      return value
    },
    clear: (): void => this.original.clear(),
  }

  constructor(base: StateReader) {
    this.base = base
  }

  /** Starts over on another base, dropping every write. */
  reset(base: StateReader): void {
    this.base = base
    this.layers = [createStateDiff()]
    this.original.clear()
  }

  /** Every write since the last reset or publish, merged; the journal is left as it is. */
  writes(): StateDiff {
    const merged = createStateDiff()
    for (const layer of this.layers) mergeDiff(merged, layer)
    return merged
  }

  /**
   * Moves every write into the base as one frozen diff and returns it. The journal keeps its depth, so a
   * checkpoint opened by the block builder stays balanced. Only call between transactions.
   */
  publish(): StateDiff {
    const diff = this.writes()
    this.layers = this.layers.map(() => createStateDiff())
    this.base = createOverlay(diff, this.base)
    return diff
  }

  private top(): StateDiff {
    return this.layers[this.layers.length - 1]!
  }

  private readAccount(address: Hex): AccountRecord | undefined {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const account = this.layers[i]!.accounts.get(address)
      if (account !== undefined) return account ?? undefined
      if (this.layers[i]!.accounts.has(address)) return undefined
    }
    return this.base.account(address)
  }

  private readStorage(address: string, slot: string): Uint8Array {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const storage = this.layers[i]!.storage.get(address as Hex)
      if (storage === undefined) continue
      const value = storage.slots.get(slot as Hex)
      if (value !== undefined) return value
      if (storage.cleared) return EMPTY
    }
    return this.base.storage(address as Hex, slot as Hex)
  }

  private readCode(codeHash: Uint8Array): Uint8Array {
    if (equalsBytes(codeHash, KECCAK256_NULL)) return EMPTY
    const hash = bytesToHex(codeHash)
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const code = this.layers[i]!.code.get(hash)
      if (code !== undefined) return code
    }
    return this.base.code(hash) ?? EMPTY
  }

  private storageOf(address: Hex): { cleared: boolean; slots: Map<Hex, Uint8Array> } {
    const top = this.top()
    let storage = top.storage.get(address)
    if (storage === undefined) top.storage.set(address, (storage = { cleared: false, slots: new Map() }))
    return storage
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const record = this.readAccount(address.toString())
    if (record === undefined) return undefined
    return new Account(record.nonce, record.balance, record.storageRoot, record.codeHash)
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address)
    this.top().accounts.set(address.toString(), toRecord(account))
  }

  async deleteAccount(address: Address): Promise<void> {
    const key = address.toString()
    const top = this.top()
    top.accounts.set(key, null)
    top.storage.set(key, { cleared: true, slots: new Map() })
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
    if (code.length > 0) this.top().code.set(bytesToHex(codeHash), code)
    await this.modifyAccountFields(address, { codeHash })
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const account = this.readAccount(address.toString())
    return account === undefined ? EMPTY : this.readCode(account.codeHash)
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.readStorage(address.toString(), bytesToHex(key))
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.storageOf(address.toString()).slots.set(bytesToHex(key), unpadBytes(value))
  }

  async clearStorage(address: Address): Promise<void> {
    this.top().storage.set(address.toString(), { cleared: true, slots: new Map() })
  }

  async checkpoint(): Promise<void> {
    this.layers.push(createStateDiff())
  }

  async commit(): Promise<void> {
    const top = this.layers.pop()!
    mergeDiff(this.top(), top)
  }

  async revert(): Promise<void> {
    this.layers.pop()
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
    copy.layers = this.layers.map((layer) => {
      const clone = createStateDiff()
      mergeDiff(clone, layer)
      return clone
    })
    return copy
  }
}

