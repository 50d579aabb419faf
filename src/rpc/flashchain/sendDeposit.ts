import { randomBytes } from 'node:crypto'

import { z } from 'zod'
import { createAddressFromString } from '@ethereumjs/util'

import { hexToBytes } from '../../hex.ts'
import { InvalidInputError } from '../../chain/errors.ts'
import { SourceDomain, sourceHashOf } from '../../chain/opstack/deposit.ts'
import { defineMethod } from '../method.ts'
import { address, data, hash, quantity, uint64 } from '../schemas.ts'

import type { Hex } from '../../hex.ts'

/**
 * A deposit as the portal's `depositTransaction` takes it, with the L1 account it is from (viem's
 * buildDepositTransaction gives the rest): `to` is ignored for a creation. Without `sourceHash`, one is made as a
 * user deposit's (domain 0) from a random L1 log, so that two equal deposits are two transactions.
 */
const depositRequest = z.strictObject({
  from: address,
  to: address.optional(),
  mint: quantity.optional(),
  value: quantity.optional(),
  gas: uint64,
  isCreation: z.boolean().optional(),
  data: data.optional(),
  sourceHash: hash.optional(),
  isSystemTx: z.boolean().optional(),
})

/**
 * Queues an OP Stack deposit (type 0x7E) for the next block's start, standing in for L1's OptimismPortal as anvil's
 * `--optimism` does: a signed-less envelope as the raw hex, or the deposit's fields. For the owner: a deposit mints.
 */
export const sendDeposit = defineMethod({
  name: 'flashchain_sendDeposit',
  access: 'owner',
  params: z.tuple([z.union([data, depositRequest])]),
  handler: ([request], { pool }): Promise<Hex> => {
    if (typeof request === 'string') return pool.sendDeposit(hexToBytes(request))
    const creation = request.isCreation === true
    if (!creation && request.to === undefined) throw new InvalidInputError('a deposit that is no creation names its `to`', { input: 'transaction' })
    return pool.sendDeposit({
      sourceHash: request.sourceHash === undefined ? sourceHashOf(SourceDomain.userDeposit, randomBytes(32), 0n) : hexToBytes(request.sourceHash),
      from: createAddressFromString(request.from),
      to: creation ? undefined : createAddressFromString(request.to!),
      mint: request.mint ?? 0n,
      value: request.value ?? 0n,
      gasLimit: request.gas,
      isSystemTx: request.isSystemTx ?? false,
      data: request.data === undefined ? new Uint8Array(0) : hexToBytes(request.data),
    })
  },
})
