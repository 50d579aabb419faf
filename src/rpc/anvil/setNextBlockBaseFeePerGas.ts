import { z } from 'zod'

import { InvalidParamsError } from '../errors.ts'
import { quantity } from '../schemas.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const params = z.tuple([quantity])

/** The next block's base fee; the blocks after it derive theirs from it, as EIP-1559 does. */
function setNextBaseFee([baseFee]: z.output<typeof params>, { spec, producer }: MethodContext) {
  if (!spec.isActive(1559)) throw new InvalidParamsError('the next block has no base fee: EIP-1559 is not active')
  return producer.planBlocks((plan) => {
    plan.nextBaseFee = baseFee
  })
}

export const anvilSetNextBlockBaseFeePerGas = anvilMethod('anvil_setNextBlockBaseFeePerGas', params, setNextBaseFee)
export const hardhatSetNextBlockBaseFeePerGas = hardhatMethod('hardhat_setNextBlockBaseFeePerGas', params, setNextBaseFee)
