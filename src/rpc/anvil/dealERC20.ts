import { z } from 'zod'

import { address, quantity } from '../schemas.ts'
import { anvilMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

/** `[account, token, amount]`, anvil's order (foundry's `EthRequest::DealERC20(address, token_address, balance)`). */
const params = z.tuple([address, address, quantity])

/** Sets `account`'s balance of an ERC20 (its total supply is left as it is, as anvil leaves it). */
function dealERC20([account, token, amount]: z.output<typeof params>, { control }: MethodContext) {
  return control.setERC20(token, { name: 'balanceOf', account }, amount)
}

export const anvilDealERC20 = anvilMethod('anvil_dealERC20', params, dealERC20)
/** anvil's alias of anvil_dealERC20. */
export const anvilSetERC20Balance = anvilMethod('anvil_setERC20Balance', params, dealERC20)
/** anvil's alias of anvil_dealERC20 (Hardhat has no such method), answering null as anvil does. */
export const hardhatDealERC20 = anvilMethod('hardhat_dealERC20', params, dealERC20)
