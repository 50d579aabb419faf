import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { ApprovalPolicy } from '../../wallet/approvals.ts'

export const getApprovalPolicy = defineMethod({
  name: 'flashchain_getApprovalPolicy',
  access: 'owner',
  params: z.tuple([]),
  handler: (_params, { wallet }): ApprovalPolicy => {
    return wallet.approvals.policy()
  },
})
