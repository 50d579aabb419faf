/**
 * What a replica asks its sequencer over HTTP (docs/scaling-out.md): its frames from a flashblock on, its head, and
 * its chain as stored (GET /snapshot), each bounded in time, so that a sequencer that hangs is one that failed.
 */
import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

import { toQuantity } from '../hex.ts'
import { editOf, frameOf } from './frames.ts'

import type { ChainEdit } from '../chain/types.ts'
import type { FlashblockJSON } from '../rpc/flashblocks.ts'
import type { UnsentEditsJSON } from '../rpc/flashchain/getUnsentEdits.ts'
import type { Frame } from './frames.ts'

/** -32001, flashchain_getFlashblocks' answer for a flashblock it no longer keeps. */
const NOT_KEPT = -32001
const CALL_TIMEOUT_MS = 10_000
/** A snapshot of a long chain is hundreds of MB. */
const SNAPSHOT_TIMEOUT_MS = 300_000

/** The sequencer refused its snapshot (HTTP 4xx): a setting to fix (`--wallet-token`), not a failure to wait out. */
export class SnapshotRefusedError extends Error {}

export type Sequencer = {
  /** Its frames from block `number`'s flashblock `index` on, oldest first; undefined when it no longer keeps that one. */
  frames(number: bigint, index: number): Promise<Frame[] | undefined>
  /** Its newest block. */
  head(): Promise<{ number: bigint; hash: string }>
  /** Writes its chain as stored now (GET /snapshot) to `file`. */
  snapshot(file: string): Promise<void>
  /** The test-control changes it made since its stream's last frame, and the next frame's sequence (flashchain_getUnsentEdits). */
  unsentEdits(): Promise<{ sequence: number; edits: ChainEdit[] }>
  /** The hash of its block `number`, if it has one. */
  blockHash(number: bigint): Promise<string | undefined>
}

export function sequencerAt(rpc: string, token: string | undefined): Sequencer {
  const base = rpc.endsWith('/') ? rpc : `${rpc}/`

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const response = await fetch(rpc, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    })
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string } }
    if (body.error !== undefined) throw Object.assign(new Error(`${method}: ${body.error.message}`), { code: body.error.code })
    return body.result as T
  }

  return {
    async frames(number, index) {
      try {
        return (await call<FlashblockJSON[]>('flashchain_getFlashblocks', [toQuantity(number), index])).map(frameOf)
      } catch (error) {
        if ((error as { code?: number }).code === NOT_KEPT) return undefined
        throw error
      }
    },
    async head() {
      const block = await call<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false])
      return { number: BigInt(block.number), hash: block.hash }
    },
    async unsentEdits() {
      const { sequence, edits } = await call<UnsentEditsJSON>('flashchain_getUnsentEdits', [])
      return { sequence, edits: edits.map(editOf) }
    },
    async blockHash(number) {
      return (await call<{ hash: string } | null>('eth_getBlockByNumber', [toQuantity(number), false]))?.hash
    },
    async snapshot(file) {
      const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
      const response = await fetch(new URL('snapshot', base), { headers, signal: AbortSignal.timeout(SNAPSHOT_TIMEOUT_MS) })
      if (response.status >= 400 && response.status < 500) {
        throw new SnapshotRefusedError(`the sequencer refused its snapshot (HTTP ${response.status}): ${await response.text()}`)
      }
      if (response.status !== 200 || response.body === null) throw new Error(`the sequencer's snapshot failed: HTTP ${response.status}`)
      await pipeline(Readable.fromWeb(response.body as never), createWriteStream(file))
    },
  }
}
