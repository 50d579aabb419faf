/**
 * The replica's connection to its sequencer's flashblocks stream (`?encoding=json`), kept open: it connects again
 * after a close, at once and then backing off to `maxRetryMs`, and after a quiet spell in which the sequencer did
 * publish (a connection that froze without closing), which a poll over JSON-RPC tells (Follower.poll).
 */
import WebSocket from 'ws'

export type FrameStreamHandlers = {
  frame(text: string): void
  /** Connected, the first time or again: frames published meanwhile were not received. */
  opened(): void
  /** Whether the sequencer published frames after the newest received, asked after `quietMs` without a frame. */
  poll(): Promise<boolean>
  log(line: string): void
}

export type FrameStream = {
  readonly connected: boolean
  /** Connections after the first. */
  readonly reconnects: number
  close(): void
}

/** A sequencer that does not complete the WebSocket handshake in this long is tried again. */
const HANDSHAKE_TIMEOUT_MS = 5000

export function openFrameStream(url: string, handlers: FrameStreamHandlers, options: { quietMs: number; maxRetryMs?: number }): FrameStream {
  const maxRetryMs = options.maxRetryMs ?? 2000
  let socket: WebSocket | undefined
  let connected = false
  let closed = false
  let opens = 0
  let retryMs = 0
  let retry: NodeJS.Timeout | undefined
  let lastFrame = performance.now()
  let polling = false

  function connect() {
    retry = undefined
    if (closed) return
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS })
    socket = ws
    ws.on('open', () => {
      if (socket !== ws) return
      connected = true
      retryMs = 0
      opens++
      lastFrame = performance.now()
      handlers.opened()
    })
    ws.on('message', (data, isBinary) => {
      if (socket !== ws) return
      lastFrame = performance.now()
      if (isBinary) {
        handlers.log('follow: the stream sent a binary frame; a replica reads ?encoding=json')
        return
      }
      handlers.frame(data.toString())
    })
    ws.on('error', (error) => {
      if (socket === ws && !connected) handlers.log(`follow: cannot reach ${url}: ${error.message}`)
    })
    ws.on('close', () => {
      if (socket !== ws) return
      connected = false
      socket = undefined
      if (closed) return
      retry = setTimeout(connect, retryMs)
      retryMs = Math.min(maxRetryMs, Math.max(100, retryMs * 2))
    })
  }

  /** Drops the connection and opens another at once. */
  function reconnect() {
    const ws = socket
    socket = undefined
    connected = false
    ws?.terminate()
    clearTimeout(retry)
    retryMs = 0
    connect()
  }

  const quiet = setInterval(async () => {
    if (!connected || polling || performance.now() - lastFrame < options.quietMs) return
    polling = true
    try {
      if (await handlers.poll()) {
        handlers.log('follow: the stream went quiet while the sequencer published: connecting again')
        reconnect()
      }
      lastFrame = performance.now()
    } catch (error) {
      handlers.log(`follow: the sequencer did not answer a poll: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      polling = false
    }
  }, options.quietMs / 3)
  quiet.unref()

  connect()
  return {
    get connected() {
      return connected
    },
    get reconnects() {
      return Math.max(0, opens - 1)
    },
    close() {
      closed = true
      clearInterval(quiet)
      clearTimeout(retry)
      socket?.terminate()
      socket = undefined
      connected = false
    },
  }
}
