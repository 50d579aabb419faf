/** A JSON reader of a chain's /flashblocks stream, for the suites that read it as a Base node would. */
import { WebSocket } from 'ws'

import { wsUrl } from './wsHelpers.ts'

import type { FlashblockJSON } from '../../src/rpc/flashblocks.ts'

export type FlashblocksReader = {
  /** Every flashblock read so far, in the order it came. */
  got: FlashblockJSON[]
  /** Resolves once `done` holds for what was read; rejects after 20 s, naming what came. */
  until(done: (got: FlashblockJSON[]) => boolean): Promise<void>
  close(): Promise<void>
}

export async function readFlashblocks(httpUrl: string): Promise<FlashblocksReader> {
  const ws = new WebSocket(wsUrl(httpUrl, '/flashblocks?encoding=json'))
  const got: FlashblockJSON[] = []
  const wake = new Set<() => void>()
  ws.on('message', (data: Buffer) => {
    got.push(JSON.parse(data.toString('utf8')) as FlashblockJSON)
    for (const check of wake) check()
  })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  const until = (done: (got: FlashblockJSON[]) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`still waiting after 20 s; got ${got.map((f) => `${f.metadata.block_number}.${f.index}`)}`)),
        20_000,
      )
      const check = () => {
        if (!done(got)) return
        wake.delete(check)
        clearTimeout(timer)
        resolve()
      }
      wake.add(check)
      check()
    })
  const close = () => new Promise<void>((resolve) => ws.once('close', () => resolve()).close())
  return { got, until, close }
}
