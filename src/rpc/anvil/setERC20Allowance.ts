import { z } from 'zod'

import { address, quantity } from '../schemas.ts'
import { anvilMethod } from './control.ts'

/**
 * `[owner, spender, token, amount]`, anvil's order: sets what the token's `allowance(owner, spender)` answers, in the
 * slot that getter reads it from.
 */
export const anvilSetERC20Allowance = anvilMethod(
  'anvil_setERC20Allowance',
  z.tuple([address, address, address, quantity]),
  ([owner, spender, token, amount], { control }) => control.setERC20(token, { name: 'allowance', owner, spender }, amount),
)
