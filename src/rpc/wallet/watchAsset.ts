import { defineMethod } from '../method.ts'
import { watchAssetParams } from './schemas.ts'

/** EIP-747: add a token to the selected account's list, after checking it on chain. */
export const watchAsset = defineMethod({
  params: watchAssetParams,
  handler: (asset, { wallet, request: caller }) => wallet.watchAsset(caller, asset),
})
