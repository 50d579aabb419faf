import { promisify } from 'node:util'
import { gunzip, gzipSync } from 'node:zlib'

import { z } from 'zod'

import { InvalidParamsError } from '../errors.ts'
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
function dump(_: unknown, { state }: MethodContext): Hex {
  const accounts: Record<Hex, unknown> = {}
  for (const [account, dumped] of Object.entries(state.dumpState().accounts)) {
    accounts[account as Hex] = { nonce: Number(dumped.nonce), balance: toQuantity(dumped.balance), code: dumped.code, storage: dumped.storage }
  }
  return bytesToHex(gzipSync(JSON.stringify({ accounts })))
}

export const anvilDumpState = defineMethod({ name: 'anvil_dumpState', access: 'owner', params: z.tuple([]), handler: dump })
/** viem's test client calls it under its mode's prefix, so the Hardhat mode finds it too. */
export const hardhatDumpState = defineMethod({ name: 'hardhat_dumpState', access: 'owner', params: z.tuple([]), handler: dump })

const dumpedAccount = z.object({
  nonce: quantity,
  balance: quantity,
  code: data.default('0x'),
  storage: z.record(storageSlot, storageSlot).default({}),
})
const dumpSchema = z.object({ accounts: z.record(address, dumpedAccount) })

/**
 * The largest state anvil_loadState takes, as JSON: a gzip-compressed dump is inflated up to this and refused past
 * it, so a small body that inflates to gigabytes (a gzip bomb) costs no more than a state this big. It holds a
 * dev chain's state many times over; docs/chain.md#loading-a-state says more.
 */
export const MAX_STATE_BYTES = 32 * 1024 * 1024

const inflate = promisify(gunzip)
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/**
 * The key of `record` that the schema would drop or refuse with a vaguer word: JSON.parse makes `__proto__` an own
 * key, which a record schema skips without a word, so the state would load without it and answer true.
 */
function badKey(record: unknown, fits: (key: string) => boolean): string | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined
  return Object.keys(record).find((key) => !fits(key))
}

/** Reads a dump: gzip-compressed JSON as anvil_dumpState writes it, or the JSON itself, as hex. */
async function parseDump(hex: Hex): Promise<StateDump> {
  let bytes: Uint8Array = hexToBytes(hex)
  let json: { accounts?: Record<string, { storage?: unknown }> }
  try {
    // On the thread pool, in chunks: the event loop goes on answering while a large state inflates.
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = await inflate(bytes, { maxOutputLength: MAX_STATE_BYTES, chunkSize: 64 * 1024 })
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new InvalidParamsError(`not a state dump: it inflates past ${MAX_STATE_BYTES} bytes, the largest state anvil_loadState takes`)
    }
    throw new InvalidParamsError(`not a state dump: ${error instanceof Error ? error.message : error}`)
  }
  if (bytes.length > MAX_STATE_BYTES) {
    throw new InvalidParamsError(`not a state dump: ${bytes.length} bytes, past ${MAX_STATE_BYTES}, the largest state anvil_loadState takes`)
  }
  try {
    json = JSON.parse(new TextDecoder().decode(bytes))
  } catch (error) {
    throw new InvalidParamsError(`not a state dump: ${error instanceof Error ? error.message : error}`)
  }
  const notAddress = badKey(json?.accounts, (key) => ADDRESS.test(key))
  if (notAddress !== undefined)
    throw new InvalidParamsError(`not a state dump: accounts: ${JSON.stringify(notAddress)} is not an address, want 20 bytes of hex`)
  for (const [account, dumped] of Object.entries(json?.accounts ?? {})) {
    const notSlot = badKey(dumped?.storage, (key) => key !== '__proto__')
    if (notSlot !== undefined)
      throw new InvalidParamsError(`not a state dump: accounts.${account}.storage: ${JSON.stringify(notSlot)} is not a storage slot`)
  }
  const parsed = dumpSchema.safeParse(json)
  if (!parsed.success) throw new InvalidParamsError(`not a state dump: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`)
  return parsed.data as StateDump
}

/** Loads a dump over the state: listed accounts take its values; answers true, as anvil does. */
async function load([hex]: [Hex], { control }: MethodContext): Promise<true> {
  await control.loadState(await parseDump(hex))
  return true
}

export const anvilLoadState = defineMethod({ name: 'anvil_loadState', access: 'owner', params: z.tuple([data]), handler: load })
export const hardhatLoadState = defineMethod({ name: 'hardhat_loadState', access: 'owner', params: z.tuple([data]), handler: load })
