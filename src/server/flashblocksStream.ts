/**
 * The flashblocks stream at `/flashblocks`, as Base's sequencer publishes it: one message per flashblock, a
 * Brotli-compressed JSON text in a binary frame by default, or the JSON text in a text frame with `?encoding=json`.
 * Each message is encoded once, whatever the number of readers.
 */
import { brotliCompressSync, constants } from 'node:zlib'

import { formatFlashblock } from '../rpc/flashblocks.ts'

import type { EventsService } from '../chain/services/events.ts'
import type { StreamSocket, WebSocketStream } from './websocket.ts'

const encodings = ['brotli', 'json'] as const

/** A quick Brotli level: a flashblock is compressed on the writer's turn, and readers want it within milliseconds. */
const BROTLI_QUALITY = 4

export function createFlashblocksStream(events: Pick<EventsService, 'subscribeFlashblocks'>): WebSocketStream {
  type Reader = { send: StreamSocket['send']; encoding: (typeof encodings)[number] }
  const readers = new Set<Reader>()
  let stop: (() => void) | undefined

  function listen() {
    stop = events.subscribeFlashblocks((flashblock) => {
      // One buffer of each encoding, made when a reader first needs it and shared by all: a reader that falls behind
      // holds references to it, not copies.
      const json = Buffer.from(JSON.stringify(formatFlashblock(flashblock)))
      let compressed: Buffer | undefined
      for (const reader of readers) {
        if (reader.encoding === 'json') {
          reader.send(json, 'text')
          continue
        }
        compressed ??= brotliCompressSync(json, {
          params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
        })
        reader.send(compressed, 'binary')
      }
    })
  }

  return {
    open(socket, query) {
      const encoding = query.get('encoding') ?? 'brotli'
      if (!(encodings as readonly string[]).includes(encoding)) {
        socket.refuse(`unknown encoding ${JSON.stringify(encoding)}: use brotli or json`)
        return () => {}
      }
      const reader: Reader = { send: socket.send, encoding: encoding as Reader['encoding'] }
      readers.add(reader)
      // The chain previews each flashblock's roots only while the stream has readers.
      if (stop === undefined) listen()
      return () => {
        readers.delete(reader)
        if (readers.size === 0) {
          stop?.()
          stop = undefined
        }
      }
    },
  }
}
