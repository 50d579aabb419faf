import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { PendingApproval } from '../../wallet/approvals.ts'

export const getPendingApprovals = defineMethod({
  name: 'flashchain_getPendingApprovals',
  access: 'owner',
  params: z.tuple([]),
  handler: (_params, { wallet }): PendingApproval[] => {
    return wallet.approvals.pending()
  },
})
