// Checked before anything else is loaded (src/runtime/nodeVersion.ts).
import './runtime/nodeVersion.ts'

import { createNode } from './node.ts'
import { RpcError } from './rpc/errors.ts'
import { createFlashblocksStream } from './server/flashblocksStream.ts'
import { loadConsolePage } from './server/consolePage.ts'
import { createHttpServer } from './server/http.ts'
import { transportLimits, webSocketLimits } from './options.ts'
import { EXECUTOR_ADDRESS } from './wallet/executor.ts'

import type { ChainServices } from './chain/chain.ts'
import type { ChainOptions } from './chain/spec/config.ts'
import type { FlashchainOptions } from './options.ts'
import type { RpcSchema } from './rpc/methods.ts'
import type { Node } from './node.ts'
import type { HttpServer } from './server/http.ts'
import type { Wallet } from './wallet/wallet.ts'

export type { FlashchainOptions }

export { EXECUTOR_ADDRESS }

export { isLoopback } from './node.ts'

export type Flashchain = {
  /** `http://HOST:PORT` of the JSON-RPC endpoint; the same with `ws://` serves WebSocket. */
  url: string
  /**
   * Calls a method in process, as an EIP-1193 provider would; failures reject with the RpcError. A method of the
   * registry is typed with its params and result; any other name is accepted untyped (it answers -32601).
   */
  request: Node['request']
  /** The chain's services by name (blocks, state, calls, pool, producer, control, events, spec), in process. */
  chain: ChainServices
  wallet: Wallet
  close(): Promise<void>
}

export { RpcError }
export type { ChainOptions, RpcSchema }

/** Starts a chain and its JSON-RPC server in this process. */
export async function createFlashchain(options: FlashchainOptions = {}): Promise<Flashchain> {
  const host = options.host ?? '127.0.0.1'
  const node = await createNode(options)
  let server: HttpServer
  try {
    server = await createHttpServer({
      host,
      port: options.port ?? 8545,
      dispatch: node.dispatch,
      ...transportLimits(options),
      consolePage: loadConsolePage(),
      health: () => {
        const head = node.chain.blocks.head()
        return { ready: true, status: { status: 'ok', head: { number: Number(head.header.number), hash: head.hash } } }
      },
      snapshot: { authorize: (caller) => node.wallet.requireOwner(caller), take: () => node.snapshot() },
      websocket: { streams: { '/flashblocks': createFlashblocksStream(node.chain.events) }, ...webSocketLimits(options) },
      log: options.log,
    })
  } catch (error) {
    await node.close()
    throw error
  }
  return {
    url: server.url,
    chain: node.chain,
    wallet: node.wallet,
    request: node.request,
    close: () => node.close(() => server.close()),
  }
}
