import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { sendCallsRequest } from './schemas.ts'

import type { SendCallsResult } from '../../wallet/batches.ts'

/** EIP-5792: submit a batch of calls, atomically through EIP-7702 when `atomicRequired`. */
export const sendCalls = defineMethod({
  name: 'wallet_sendCalls',
  access: 'grant',
  params: z.tuple([sendCallsRequest]),
  handler: ([request], { wallet, request: caller }): Promise<SendCallsResult> => wallet.batches.send(caller, request),
})
