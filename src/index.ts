import { createChain } from './chain/chain.ts'
import { RpcError } from './errors.ts'
import { createDispatcher } from './rpc/dispatch.ts'
import { methods } from './rpc/methods.ts'
import { createHttpServer } from './server/http.ts'

import type { Chain } from './chain/chain.ts'
import type { ChainOptions } from './chain/config.ts'

export type FlashchainOptions = ChainOptions & {
  host?: string
  port?: number
  /** Longest batch a request may hold. */
  maxBatchLength?: number
  /** Largest request body, in bytes. */
  maxBodyBytes?: number
}

export type Flashchain = {
  /** `http://HOST:PORT` of the JSON-RPC endpoint. */
  url: string
  /** Calls a method in process, as an EIP-1193 provider would; failures throw the RpcError. */
  request(args: { method: string; params?: unknown }): Promise<unknown>
  chain: Chain
  close(): Promise<void>
}

export { RpcError }
export type { ChainOptions }

/** Starts a chain and its JSON-RPC server in this process. */
export async function createFlashchain(options: FlashchainOptions = {}): Promise<Flashchain> {
  const chain = await createChain(options)
  const dispatch = createDispatcher({
    methods,
    context: (request) => ({ chain, request }),
    maxBatchLength: options.maxBatchLength ?? 1000,
    onInternalError: (error, method) => options.log?.(`internal error in ${method}: ${error instanceof Error ? error.stack : error}`),
  })
  const server = await createHttpServer({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8545,
    dispatch,
    maxBodyBytes: options.maxBodyBytes,
  })
  let id = 0
  return {
    url: server.url,
    chain,
    async request({ method, params }) {
      const response = (await dispatch(
        { jsonrpc: '2.0', id: ++id, method, params: params ?? [] },
        { origin: undefined, authorization: undefined },
      )) as { result?: unknown; error?: { code: number; message: string; data?: unknown } }
      if (response.error !== undefined) {
        throw new RpcError(response.error.message, { code: response.error.code, data: response.error.data })
      }
      return response.result
    },
    async close() {
      await server.close()
      await chain.close()
    },
  }
}
