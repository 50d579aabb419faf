/**
 * A WebSocket proxy in front of a node's /flashblocks stream, for the replica tests: it passes each frame on, or drops,
 * holds back, changes or stops passing frames when told to, as a network or a broken middlebox would. Each connection
 * it accepts opens one of its own to the node, with the same path and query. Bound to 127.0.0.1.
 */
import { createServer } from 'node:http'

import WebSocket, { WebSocketServer } from 'ws'

export type FrameProxy = {
  /** The proxy's stream: `ws://127.0.0.1:PORT/flashblocks`. */
  url: string
  /** Frames passed on, in the order the reader got them, as their `flashchain_sequence`. */
  readonly passed: number[]
  /** Connections accepted so far. */
  readonly connections: number
  /** Drops the next `count` frames. */
  drop(count: number): void
  /** Holds the next frame back while the ones after it pass, until the function returned is called. */
  holdNext(): () => void
  /** Passes the next frame on changed by `change` (its JSON text in, the text to send out). */
  tamperNext(change: (text: string) => string): void
  /** Stops passing anything on the connections open now, which stay open; later connections pass as usual. */
  freeze(): void
  close(): Promise<void>
}

const sequenceOf = (text: string) => (JSON.parse(text) as { metadata: { flashchain_sequence: number } }).metadata.flashchain_sequence

export async function startFrameProxy(upstream: string): Promise<FrameProxy> {
  const server = createServer()
  const wss = new WebSocketServer({ server })
  const passed: number[] = []
  const frozen = new Set<WebSocket>()
  let connections = 0
  let dropping = 0
  let holding: ((pass: () => void) => void) | undefined
  let tamper: ((text: string) => string) | undefined
  const sockets = new Set<WebSocket>()

  wss.on('connection', (client, request) => {
    connections++
    sockets.add(client)
    const origin = new WebSocket(new URL(request.url ?? '/', upstream).toString())
    sockets.add(origin)
    const pass = (text: string) => {
      if (client.readyState !== WebSocket.OPEN || frozen.has(client)) return
      passed.push(sequenceOf(text))
      client.send(text)
    }
    origin.on('message', (data) => {
      const text = data.toString()
      if (frozen.has(client)) return
      if (dropping > 0) {
        dropping--
        return
      }
      if (tamper !== undefined) {
        const change = tamper
        tamper = undefined
        return pass(change(text))
      }
      if (holding !== undefined) {
        holding(() => pass(text))
        holding = undefined
        return
      }
      pass(text)
    })
    origin.on('close', () => client.close())
    origin.on('error', () => client.terminate())
    client.on('close', () => origin.close())
    client.on('error', () => origin.terminate())
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `ws://127.0.0.1:${port}/flashblocks`,
    passed,
    get connections() {
      return connections
    },
    drop: (count) => void (dropping += count),
    holdNext() {
      let release: (() => void) | undefined
      let released = false
      holding = (pass) => {
        release = pass
        if (released) pass()
      }
      return () => {
        released = true
        release?.()
      }
    },
    tamperNext: (change) => void (tamper = change),
    freeze() {
      for (const client of wss.clients) frozen.add(client)
    },
    async close() {
      for (const socket of sockets) socket.terminate()
      await new Promise<void>((resolve) => wss.close(() => server.close(() => resolve())))
    },
  }
}
