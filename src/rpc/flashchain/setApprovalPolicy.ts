import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { approvalPolicy } from '../wallet/schemas.ts'

export const setApprovalPolicy = defineMethod({
  name: 'flashchain_setApprovalPolicy',
  access: 'owner',
  params: z.tuple([approvalPolicy]),
  handler: ([policy], { wallet }): true => {
    wallet.approvals.setPolicy({ default: policy.default, methods: policy.methods ?? {} })
    return true
  },
})
