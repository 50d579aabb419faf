import { z } from 'zod'

import { InvalidInputError } from '../../chain/errors.ts'
import { editL1Values } from '../../chain/opstack/l1Values.ts'
import { defineMethod } from '../method.ts'
import { quantity } from '../schemas.ts'

/**
 * Sets the L1 values an OP Stack chain's fees are computed from, in L1Block's storage: the L1 base fee and blob base
 * fee, their scalars, the operator fee's scalar and constant, and Jovian's DA footprint scalar. Those left out keep
 * their values. The transactions pre-confirmed after it pay by them, and every later block's L1 attributes deposit
 * carries them on. For the owner; null, as anvil's setters answer.
 */
export const setL1Values = defineMethod({
  name: 'flashchain_setL1Values',
  access: 'owner',
  params: z.tuple([
    z.strictObject({
      l1BaseFee: quantity.optional(),
      l1BlobBaseFee: quantity.optional(),
      baseFeeScalar: quantity.optional(),
      blobBaseFeeScalar: quantity.optional(),
      operatorFeeScalar: quantity.optional(),
      operatorFeeConstant: quantity.optional(),
      daFootprintGasScalar: quantity.optional(),
    }),
  ]),
  handler: async ([values], { control, spec }): Promise<null> => {
    if (!spec.opStack) throw new InvalidInputError('L1 values belong to an OP Stack chain (--op-stack)')
    let edit: ReturnType<typeof editL1Values>
    try {
      edit = editL1Values(values)
    } catch (error) {
      throw new InvalidInputError(error instanceof Error ? error.message : String(error))
    }
    await control.edit(edit)
    return null
  },
})
