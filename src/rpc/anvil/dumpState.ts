import { gunzipSync, gzipSync } from 'node:zlib'

import { z } from 'zod'

import { InvalidParamsError } from '../../errors.ts'
import { bytesToHex, hexToBytes, toQuantity } from '../../hex.ts'
import { defineMethod } from '../method.ts'
import { address, data, quantity, storageSlot } from '../schemas.ts'

import type { StateDump } from '../../chain/state/dump.ts'
import type { Hex } from '../../hex.ts'
import type { MethodContext } from '../method.ts'

/**
 * The latest state as anvil writes it: gzip-compressed JSON of every account (nonce, balance, code, storage), as
 * hex. viem's dumpState hands it back to anvil_loadState as it is.
 */
function dump(_: unknown, { chain, wallet, request }: MethodContext): Hex {
  wallet.requireOwner(request)
  const accounts: Record<Hex, unknown> = {}
  for (const [account, dumped] of Object.entries(chain.dumpState().accounts)) {
    accounts[account as Hex] = { nonce: Number(dumped.nonce), balance: toQuantity(dumped.balance), code: dumped.code, storage: dumped.storage }
  }
  return bytesToHex(gzipSync(JSON.stringify({ accounts })))
}

export const anvilDumpState = defineMethod({ name: 'anvil_dumpState', params: z.tuple([]), handler: dump })
/** viem's test client calls it under its mode's prefix, so the Hardhat mode finds it too. */
export const hardhatDumpState = defineMethod({ name: 'hardhat_dumpState', params: z.tuple([]), handler: dump })

const dumpedAccount = z.object({
  nonce: quantity,
  balance: quantity,
  code: data.default('0x'),
  storage: z.record(storageSlot, storageSlot).default({}),
})
const dumpSchema = z.object({ accounts: z.record(address, dumpedAccount) })

/** Reads a dump: gzip-compressed JSON as anvil_dumpState writes it, or the JSON itself, as hex. */
function parseDump(hex: Hex): StateDump {
  let bytes = hexToBytes(hex)
  let json: unknown
  try {
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes, { maxOutputLength: 256 * 1024 * 1024 })
    json = JSON.parse(new TextDecoder().decode(bytes))
  } catch (error) {
    throw new InvalidParamsError(`not a state dump: ${error instanceof Error ? error.message : error}`)
  }
  const parsed = dumpSchema.safeParse(json)
  if (!parsed.success) throw new InvalidParamsError(`not a state dump: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`)
  return parsed.data as StateDump
}

/** Loads a dump over the state: listed accounts take its values; answers true, as anvil does. */
async function load([hex]: [Hex], { chain, wallet, request }: MethodContext): Promise<true> {
  wallet.requireOwner(request)
  await chain.loadState(parseDump(hex))
  return true
}

export const anvilLoadState = defineMethod({ name: 'anvil_loadState', params: z.tuple([data]), handler: load })
export const hardhatLoadState = defineMethod({ name: 'hardhat_loadState', params: z.tuple([data]), handler: load })
