import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { approvalPolicy } from '../wallet/schemas.ts'

export const setApprovalPolicy = defineMethod({
  name: 'flashchain_setApprovalPolicy',
  params: z.tuple([approvalPolicy]),
  handler: ([policy], { wallet, request: caller }): true => {
    wallet.requireOwner(caller)
    wallet.approvals.setPolicy({ default: policy.default, methods: policy.methods ?? {} })
    return true
  },
})
