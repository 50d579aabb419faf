import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { ApprovalPolicy } from '../../wallet/approvals.ts'

export const getApprovalPolicy = defineMethod({
  name: 'flashchain_getApprovalPolicy',
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }): ApprovalPolicy => {
    wallet.requireOwner(caller)
    return wallet.approvals.policy()
  },
})
