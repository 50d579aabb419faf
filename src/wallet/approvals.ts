import { randomUUID } from 'node:crypto'

import { InvalidInputError } from '../chain/errors.ts'
import { toQuantity } from '../hex.ts'

import type { ApprovalKey, ApprovalPolicy } from './approvalKeys.ts'

export { approvalDecisions, approvalKeys } from './approvalKeys.ts'
export type { ApprovalDecision, ApprovalKey, ApprovalPolicy } from './approvalKeys.ts'

/** A prompt waiting for the user. `key` tells the policy key that sent it here (the upgrade prompt of a batch says `upgrade`). */
export type PendingApproval = { id: string; method: string; key: ApprovalKey; params: unknown; origin: string | null; createdAt: number }

/**
 * The user, made scriptable: each prompt is approved, rejected, or left waiting for flashchain_resolveApproval
 * until it times out (which counts as a rejection, as a closed wallet popup does).
 */
export type Approvals = {
  policy(): ApprovalPolicy
  setPolicy(policy: ApprovalPolicy): void
  pending(): PendingApproval[]
  resolve(id: string, decision: 'approve' | 'reject'): void
  /** Resolves true when the prompt is approved, false when rejected or timed out. */
  /** `prompt`: ask the user even where the policy says approve (an origin the developer has not said they trust). */
  ask(key: ApprovalKey, prompt: { method: string; params: unknown; origin: string | undefined }, options?: { prompt?: boolean }): Promise<boolean>
  /**
   * Calls `listener` with the whole waiting list each time a prompt joins or leaves it (asked, resolved, timed out,
   * closed); the flashchain_pendingApprovals subscription follows it. Returns what stops the calls.
   */
  subscribe(listener: (pending: PendingApproval[]) => void): () => void
  close(): void
}

export function createApprovals(options: { policy: ApprovalPolicy; timeoutMs: number }): Approvals {
  let policy = options.policy
  const waiting = new Map<string, { approval: PendingApproval; settle: (approved: boolean) => void }>()
  const listeners = new Set<(pending: PendingApproval[]) => void>()
  const pending = () => [...waiting.values()].map(({ approval }) => approval)
  // One list per change, shared by every listener: a subscription serializes it once for all its subscribers.
  const changed = () => {
    if (listeners.size === 0) return
    const list = pending()
    for (const listener of listeners) listener(list)
  }

  return {
    policy: () => policy,
    setPolicy(next) {
      policy = next
    },
    pending,

    resolve(id, decision) {
      const entry = waiting.get(id)
      if (entry === undefined) throw new InvalidInputError(`no pending approval with id ${id}`, { input: 'approval' })
      entry.settle(decision === 'approve')
    },

    ask(key, prompt, askOptions = {}) {
      const policed = policy.methods[key] ?? policy.default
      const decision = policed === 'approve' && askOptions.prompt === true ? 'manual' : policed
      if (decision !== 'manual') return Promise.resolve(decision === 'approve')
      const approval: PendingApproval = {
        id: randomUUID(),
        method: prompt.method,
        key,
        params: asJson(prompt.params),
        origin: prompt.origin ?? null,
        createdAt: Date.now(),
      }
      return new Promise((resolve) => {
        const timeout = setTimeout(() => settle(false), options.timeoutMs)
        const settle = (approved: boolean) => {
          clearTimeout(timeout)
          waiting.delete(approval.id)
          resolve(approved)
          changed()
        }
        waiting.set(approval.id, { approval, settle })
        changed()
      })
    },

    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },

    close() {
      for (const { settle } of waiting.values()) settle(false)
    },
  }
}

/** A prompt's params as flashchain_getPendingApprovals lists them: JSON, with bigints as quantities. */
function asJson(params: unknown): unknown {
  return JSON.parse(JSON.stringify(params, (_key, value) => (typeof value === 'bigint' ? toQuantity(value) : value)))
}
