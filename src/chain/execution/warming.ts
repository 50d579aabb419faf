// A fork's runs, warmed (docs/fork.md): a run's first read of upstream state it does not hold also asks the
// upstream to trace the run's call at the fork block (fork/remoteState.ts RemoteState.warm), which names every
// account and slot the call reads there, with their values. The rest of the run reads what is held rather than
// waiting for the upstream once per read.
//
// The upstream runs the call on its own state, which is not the run's where local blocks wrote: a local approval
// that the upstream lacks makes its run revert half way, and name only the reads before. So the trace is asked again
// with the local values of what the last one read as state overrides, while they differ, up to TRACE_ROUNDS in all.
// The run waits for the first answer only; the later ones are held as they come.
import { KECCAK256_NULL, bytesToHex, equalsBytes } from '@ethereumjs/util'

import { StateMiss, warmingReads } from '../state/miss.ts'

import type { Warming } from '../state/miss.ts'

import type { WarmCall, WarmOverrides } from '../fork/upstream.ts'
import type { Warmed } from '../fork/remoteState.ts'
import type { AccountRecord, StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { CallRequest, ExecutionView } from './executor.ts'
import type { Job } from './jobs.ts'

/** What warms a run of a call: a fork's upstream state's warm; undefined on a chain of its own. */
export type Warm = ((call: WarmCall, missed?: string) => Promise<Warmed>) | undefined

/** Traces of one run's call at most: the first, then again while the local state it read differs. */
const TRACE_ROUNDS = 3

/** The view a run of `request` reads: on a fork, warmed at its first miss. */
export function warmedView(view: ExecutionView, request: CallRequest | undefined, warm: Warm): ExecutionView {
  if (warm === undefined || request === undefined) return view
  // Only what the upstream's trace runs on: the request may carry much else (an access list, authorizations).
  const call: WarmCall = { from: request.from, to: request.to, data: request.data, value: request.value }
  return { ...view, state: warmingReads(view.state, (missed) => warmRounds(call, view.state, warm, missed)) }
}

/** The one call a job runs, where it runs one (a trace of a call, an access list); a simulation runs many. */
export function jobCall(job: Job): CallRequest | undefined {
  return job.kind === 'traceCall' || job.kind === 'accessList' ? job.request : undefined
}

/** The traces of one run's call: the first at once; the next while what the last one read differs here. */
function warmRounds(call: WarmCall, state: StateReader, warm: NonNullable<Warm>, missed: string): Warming {
  // The sender's own account as it is here, where it is: its balance pays the call's value.
  let overrides: WarmOverrides | undefined
  if (call.from !== undefined) {
    const sender = readHere(() => state.account(call.from!))
    if (sender !== MISSED) overrides = accountOverride({}, call.from, sender, state)
  }
  let pending: Promise<Warmed> | undefined
  const ask = (round: Promise<Warmed>) => {
    // Cleared by the first reaction to the answer, before any reader waiting for it reads again.
    const settled = () => {
      if (pending === round) pending = undefined
    }
    round.then(settled, settled)
    pending = round
    return round
  }
  const first = ask(warm({ ...call, overrides }, missed))
  const later = async () => {
    let warmed = await first
    for (let round = 1; round < TRACE_ROUNDS; round++) {
      const more = divergence(warmed, state, overrides ?? {})
      if (more === undefined) return
      overrides = more
      warmed = await ask(warm({ ...call, overrides }))
    }
  }
  // Only a hint: a failure leaves the run's reads to miss one at a time.
  later().catch(() => {})
  return { first, pending: () => pending }
}

/**
 * `overrides` and the local values of what `warmed` read where they differ from the upstream's: slots, and accounts
 * with code (an account without code whose balance alone differs, such as a fee recipient, changes no path).
 * Undefined when nothing differs beyond what `overrides` already sets.
 */
function divergence(warmed: Warmed, state: StateReader, overrides: WarmOverrides): WarmOverrides | undefined {
  const next: WarmOverrides = { ...overrides }
  let more = false
  for (const [address, slot, upstream] of warmed.slots) {
    if (next[address]?.stateDiff?.[slot] !== undefined) continue
    const local = readHere(() => state.storage(address, slot))
    if (local === MISSED || equalsBytes(local, upstream)) continue
    const stateDiff = { ...next[address]?.stateDiff, [slot]: `0x${bytesToHex(local).slice(2).padStart(64, '0')}` as Hex }
    next[address] = { ...next[address], stateDiff }
    more = true
  }
  for (const [address, { account: upstream }] of warmed.accounts) {
    if (next[address]?.balance !== undefined) continue
    const local = readHere(() => state.account(address))
    if (local === MISSED || sameAccount(local, upstream)) continue
    const withCode = [local, upstream].some((account) => account != null && !equalsBytes(account.codeHash, KECCAK256_NULL))
    if (!withCode && (local?.nonce ?? 0n) === (upstream?.nonce ?? 0n)) continue
    accountOverride(next, address, local, state)
    more = true
  }
  return more ? next : undefined
}

/** `overrides` with `address`'s balance, nonce and code set to `local`'s (undefined: no account); its code where known here. */
function accountOverride(overrides: WarmOverrides, address: Hex, local: AccountRecord | undefined, state: StateReader): WarmOverrides {
  const codeHash = local?.codeHash ?? KECCAK256_NULL
  const code = equalsBytes(codeHash, KECCAK256_NULL) ? new Uint8Array() : readHere(() => state.code(bytesToHex(codeHash) as Hex))
  overrides[address] = {
    ...overrides[address],
    balance: `0x${(local?.balance ?? 0n).toString(16)}`,
    nonce: `0x${(local?.nonce ?? 0n).toString(16)}`,
    ...(code === MISSED || code === undefined ? {} : { code: bytesToHex(code) as Hex }),
  }
  return overrides
}

function sameAccount(local: AccountRecord | undefined, upstream: AccountRecord | null): boolean {
  if (local === undefined || upstream === null) return local === undefined && upstream === null
  return local.balance === upstream.balance && local.nonce === upstream.nonce && equalsBytes(local.codeHash, upstream.codeHash)
}

/** A read that would have to wait for the upstream. */
const MISSED = Symbol('missed')

/** What `read` finds here, without waiting: MISSED where it would wait. */
function readHere<T>(read: () => T): T | typeof MISSED {
  try {
    return read()
  } catch (error) {
    if (error instanceof StateMiss) return MISSED
    throw error
  }
}
