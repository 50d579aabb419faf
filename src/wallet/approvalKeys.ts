/**
 * The approval policy's vocabulary: what a policy can answer and what it can be set for. It imports nothing, so the
 * console page's editor reads the same lists as the node.
 */

export const approvalDecisions = ['approve', 'reject', 'manual'] as const
export type ApprovalDecision = (typeof approvalDecisions)[number]

/** What a policy can be set for: the prompting methods, and the EIP-7702 upgrade prompt of an atomic batch. */
export const approvalKeys = [
  'wallet_sendCalls',
  'wallet_watchAsset',
  'eth_requestAccounts',
  'eth_sendTransaction',
  'upgrade',
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sign',
  'eth_signTransaction',
] as const
export type ApprovalKey = (typeof approvalKeys)[number]

export type ApprovalPolicy = { default: ApprovalDecision; methods: Partial<Record<ApprovalKey, ApprovalDecision>> }
