import { defineMethod } from '../method.ts'
import { watchAssetParams } from './schemas.ts'

/** EIP-747: add a token to the selected account's list, after checking it on chain. */
export const watchAsset = defineMethod({
  name: 'wallet_watchAsset',
  access: 'grant',
  params: watchAssetParams,
  handler: (asset, { wallet, request: caller }): Promise<true> => wallet.watchAsset(caller, asset),
})
