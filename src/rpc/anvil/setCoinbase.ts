import { z } from 'zod'

import { address } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([address])

/** The fee recipient of every block from the next one on (COINBASE, and the priority fees). */
function setCoinbaseOf([coinbase]: z.output<typeof params>, { producer }: MethodContext) {
  return producer.planBlocks((plan) => {
    plan.coinbase = coinbase
  })
}

export const anvilSetCoinbase = anvilMethod('anvil_setCoinbase', params, setCoinbaseOf)
export const hardhatSetCoinbase = hardhatMethod('hardhat_setCoinbase', params, setCoinbaseOf)
