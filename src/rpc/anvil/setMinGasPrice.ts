import { z } from 'zod'

import { quantity } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([quantity])

/** The lowest gas price the pool takes, on a chain without EIP-1559; with it, -32602 as anvil answers. */
function setMinGasPriceOf([price]: z.output<typeof params>, { pool }: MethodContext) {
  pool.setMinGasPrice(price)
}

export const anvilSetMinGasPrice = anvilMethod('anvil_setMinGasPrice', params, setMinGasPriceOf)
export const hardhatSetMinGasPrice = hardhatMethod('hardhat_setMinGasPrice', params, setMinGasPriceOf)
