import { z } from 'zod'

import { editAccount } from '../../chain/state/edits.ts'
import { address, quantity } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([address, quantity])

function setBalanceOf([account, balance]: z.output<typeof params>, { control }: MethodContext) {
  return control.edit(editAccount(account, () => ({ balance })))
}

export const anvilSetBalance = anvilMethod('anvil_setBalance', params, setBalanceOf)
export const hardhatSetBalance = hardhatMethod('hardhat_setBalance', params, setBalanceOf)

/** Adds to an account's balance; the sum may not pass 2^256 - 1. */
export const anvilAddBalance = anvilMethod('anvil_addBalance', params, ([account, amount], { control }) =>
  control.edit(editAccount(account, (current) => ({ balance: capped(current.balance + amount) }))),
)

const MAX_UINT256 = 2n ** 256n - 1n
const capped = (balance: bigint) => (balance > MAX_UINT256 ? MAX_UINT256 : balance)
