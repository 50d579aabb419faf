import { z } from 'zod'

import { defineMethod } from '../method.ts'

import type { PendingApproval } from '../../wallet/approvals.ts'

export const getPendingApprovals = defineMethod({
  name: 'flashchain_getPendingApprovals',
  params: z.tuple([]),
  handler: (_params, { wallet, request: caller }): PendingApproval[] => {
    wallet.requireOwner(caller)
    return wallet.approvals.pending()
  },
})
