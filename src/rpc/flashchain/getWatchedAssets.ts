import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { address } from '../schemas.ts'

import type { WatchedAsset } from '../../wallet/store.ts'

export const getWatchedAssets = defineMethod({
  name: 'flashchain_getWatchedAssets',
  access: 'owner',
  params: z.tuple([address.optional()]),
  handler: ([account], { wallet, request: caller }): WatchedAsset[] => {
    return wallet.watchedAssets(caller, account)
  },
})
