import { KECCAK256_NULL, bytesToHex } from '@ethereumjs/util'

import { createOverlay } from '../../state/overlay.ts'

import type { EVMResult, InterpreterStep } from '@ethereumjs/evm'
import type { StateReader } from '../../state/types.ts'
import type { Hex } from '../../../hex.ts'
import type { TraceEnd, TraceStart, Tracer, TracerConfig } from './tracer.ts'

/** An account in geth's prestateTracer order of fields; each is left out when empty (a zero balance is kept). */
type AccountJSON = { balance?: Hex; code?: Hex; codeHash?: Hex; nonce?: number; storage?: Record<Hex, Hex> }

const ADDRESS_MASK = (1n << 160n) - 1n
const addressOf = (word: bigint): Hex => `0x${(word & ADDRESS_MASK).toString(16).padStart(40, '0')}`
const slotOf = (word: bigint): Hex => `0x${word.toString(16).padStart(64, '0')}`
const EMPTY_CODE_HASH = bytesToHex(KECCAK256_NULL) as Hex
const ZERO_WORD = slotOf(0n)

const READS_ACCOUNT = new Set(['EXTCODECOPY', 'EXTCODEHASH', 'EXTCODESIZE', 'BALANCE', 'SELFDESTRUCT'])
const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])

function sortedKeys<T>(entries: [Hex, T][]): Record<Hex, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as Record<Hex, T>
}

/** An account as a state holds it, in the tracer's words; `slots` are the slots to report. */
function accountIn(state: StateReader, address: Hex, slots: Iterable<Hex>): AccountJSON & { codeHashValue: Hex } {
  const account = state.account(address)
  const codeHash = account === undefined ? EMPTY_CODE_HASH : (bytesToHex(account.codeHash) as Hex)
  const code = codeHash === EMPTY_CODE_HASH ? undefined : state.code(codeHash)
  const json: AccountJSON & { codeHashValue: Hex } = { balance: `0x${(account?.balance ?? 0n).toString(16)}`, codeHashValue: codeHash }
  if (code !== undefined && code.length > 0) {
    json.code = bytesToHex(code) as Hex
    json.codeHash = codeHash
  }
  if ((account?.nonce ?? 0n) > 0n) json.nonce = Number(account!.nonce)
  const storage: [Hex, Hex][] = []
  for (const slot of slots) {
    const value = state.storage(address, slot)
    storage.push([slot, slotOf(value.length === 0 ? 0n : BigInt(bytesToHex(value)))])
  }
  if (storage.length > 0) json.storage = sortedKeys(storage)
  return json
}

const withoutHash = ({ codeHashValue: _hash, ...json }: AccountJSON & { codeHashValue: Hex }): AccountJSON => json

/**
 * geth's prestateTracer: every account the transaction touched as it was before, with the slots it read or wrote.
 * With `diffMode`, only what changed: `pre` holds the changed accounts' old fields, `post` their new ones (a cleared
 * slot and a deleted account appear in `pre` only). Accounts a creation brought into being are not in `pre`.
 */
export function createPrestateTracer(start: TraceStart, config: TracerConfig): Tracer {
  const diffMode = config.diffMode === true
  const touched = new Map<Hex, Set<Hex>>()
  const created = new Set<Hex>()
  const touch = (address: Hex) => {
    if (!touched.has(address)) touched.set(address, new Set())
  }
  for (const address of [start.from, start.to, start.coinbase, ...start.authorities]) touch(address)

  function step(step: InterpreterStep) {
    const { stack } = step
    const name = step.opcode.name
    if ((name === 'SLOAD' || name === 'SSTORE') && stack.length >= 1) {
      const address = step.address.toString() as Hex
      touch(address)
      touched.get(address)!.add(slotOf(stack[stack.length - 1]!))
    } else if (READS_ACCOUNT.has(name) && stack.length >= 1) {
      touch(addressOf(stack[stack.length - 1]!))
    } else if (CALLS.has(name) && stack.length >= 5) {
      touch(addressOf(stack[stack.length - 2]!))
    }
  }

  function afterMessage(result: EVMResult) {
    if (result.createdAddress === undefined) return
    const address = result.createdAddress.toString() as Hex
    touch(address)
    created.add(address)
  }

  return {
    hooks: { step, afterMessage },
    result(end: TraceEnd) {
      const pre: [Hex, AccountJSON & { codeHashValue: Hex }][] = []
      for (const [address, slots] of touched) {
        // An account this transaction created was not there before it (unless something was already at its address).
        if (created.has(address) && end.pre.account(address) === undefined) continue
        pre.push([address, accountIn(end.pre, address, slots)])
      }
      if (!diffMode) return sortedKeys(pre.map(([address, json]) => [address, withoutHash(json)]))

      const after = createOverlay(end.writes, end.pre)
      const changedPre: [Hex, AccountJSON][] = []
      const changedPost: [Hex, AccountJSON][] = []
      const deleted = new Set([...end.writes.accounts].filter(([, account]) => account === null).map(([address]) => address))
      for (const address of touched.keys()) {
        const slots = touched.get(address)!
        const existed = pre.find(([a]) => a === address)?.[1]
        const old = existed ?? { codeHashValue: EMPTY_CODE_HASH, balance: '0x0' }
        if (deleted.has(address)) {
          if (existed !== undefined) changedPre.push([address, withoutHash(old)])
          continue
        }
        const now = accountIn(after, address, [])
        const post: AccountJSON = {}
        let modified = false
        if (now.balance !== old.balance) {
          post.balance = now.balance
          modified = true
        }
        if ((now.nonce ?? 0) !== (old.nonce ?? 0)) {
          post.nonce = now.nonce ?? 0
          modified = true
        }
        if (now.codeHashValue !== old.codeHashValue) {
          post.codeHash = now.codeHashValue === EMPTY_CODE_HASH ? ZERO_WORD : now.codeHashValue
          modified = true
        }
        if ((now.code ?? '0x') !== (old.code ?? '0x')) {
          post.code = now.code ?? '0x'
          modified = true
        }
        const oldSlots: [Hex, Hex][] = []
        const newSlots: [Hex, Hex][] = []
        for (const slot of slots) {
          const before = old.storage?.[slot] ?? ZERO_WORD
          const value = bytesToHex(after.storage(address, slot))
          const current = slotOf(value === '0x' ? 0n : BigInt(value))
          if (before === current) continue
          modified = true
          if (before !== ZERO_WORD) oldSlots.push([slot, before])
          if (current !== ZERO_WORD) newSlots.push([slot, current])
        }
        if (newSlots.length > 0) post.storage = sortedKeys(newSlots)
        if (!modified) continue
        const { storage: _storage, ...rest } = withoutHash(old)
        if (existed !== undefined) changedPre.push([address, oldSlots.length > 0 ? { ...rest, storage: sortedKeys(oldSlots) } : rest])
        changedPost.push([address, order(post)])
      }
      return { post: sortedKeys(changedPost), pre: sortedKeys(changedPre) }
    },
  }
}

/** geth's field order: balance, code, codeHash, nonce, storage. */
function order(account: AccountJSON): AccountJSON {
  const { balance, code, codeHash, nonce, storage } = account
  return {
    ...(balance === undefined ? {} : { balance }),
    ...(code === undefined ? {} : { code }),
    ...(codeHash === undefined ? {} : { codeHash }),
    ...(nonce === undefined ? {} : { nonce }),
    ...(storage === undefined ? {} : { storage }),
  }
}
