import { z } from 'zod'

import { address, quantity } from '../schemas.ts'
import { anvilMethod } from './control.ts'

/** Sets `account`'s balance of an ERC20 (its total supply is left as it is, as anvil leaves it). */
export const anvilDealERC20 = anvilMethod('anvil_dealERC20', z.tuple([address, address, quantity]), ([token, account, amount], { chain }) =>
  chain.dealERC20(token, account, amount),
)
