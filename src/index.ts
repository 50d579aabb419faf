// Checked before anything else is loaded (src/runtime/nodeVersion.ts).
import './runtime/nodeVersion.ts'

import { createChain } from './chain/chain.ts'
import { closeDatabase, openDatabase } from './chain/storage/database.ts'
import { RpcError } from './rpc/errors.ts'
import { EncodedJson } from './runtime/encodedJson.ts'
import { createDispatcher } from './rpc/dispatch.ts'
import { createFilters } from './rpc/filters.ts'
import { methods } from './rpc/methods.ts'

import type { RpcSchema } from './rpc/methods.ts'
import { createFlashblocksStream } from './server/flashblocksStream.ts'
import { loadConsolePage } from './server/consolePage.ts'
import { loadProjectAbis } from './server/projectAbis.ts'
import { createHttpServer } from './server/http.ts'
import { EXECUTOR_ADDRESS, executorCode } from './wallet/executor.ts'
import { createWallet } from './wallet/wallet.ts'

import type { Chain, ChainServices } from './chain/chain.ts'
import type { ChainOptions } from './chain/spec/config.ts'
import type { ApprovalDecision } from './wallet/approvals.ts'
import type { Wallet } from './wallet/wallet.ts'

export type FlashchainOptions = ChainOptions & {
  host?: string
  /** What a state read that names no block reads: `latest` (the default, as the method reference has it) or `pending`. */
  defaultBlockTag?: 'latest' | 'pending'
  port?: number
  /** Longest batch a request may hold. */
  maxBatchLength?: number
  /** Largest request body or WebSocket message, in bytes. */
  maxBodyBytes?: number
  /** Most connections open at once, HTTP and WebSocket together (default 1000). */
  maxConnections?: number
  /** Request bytes held at once across connections (default 64 MiB, or 16 of the largest bodies). */
  maxBufferedBytes?: number
  /** ms an answer may sit with none of it read before its connection is closed (default 30000). */
  writeTimeout?: number
  /**
   * Bytes one WebSocket connection may have waiting to be sent when its next message is sent (default 8 MiB): beyond,
   * it is closed with 1008. A message that finds the connection within it is sent whole, however large.
   */
  maxOutputBytes?: number
  /**
   * Bytes of answers and notifications waiting to be sent across all connections (default 64 MiB): past it, the
   * connection furthest behind is dropped first.
   */
  maxTotalOutputBytes?: number
  /** The most blocks one anvil_mine or hardhat_mine may seal (default 10,000; -32602 beyond). */
  maxMineBlocks?: number
  /** Subscriptions one WebSocket connection may hold at once (default 100; -32005 beyond). */
  maxSubscriptions?: number
  /** Subscriptions all connections may hold together (default 1000; -32005 beyond). */
  maxTotalSubscriptions?: number
  /** Host names a request's Host header may give besides the loopback names and the bind address; `*` for any. */
  allowedHosts?: string[]
  /** Browser origins the wallet trusts besides pages served from this machine; `*` for any (see WalletOptions). */
  allowedOrigins?: string[]
  /** The wallet's approval policy for every prompt (default approve). */
  approval?: ApprovalDecision
  /** ms a manual approval waits before it counts as rejected (default 300000). */
  approvalTimeout?: number
  /** Bearer token that wallet and admin methods require on a non-loopback bind. */
  walletToken?: string
  /** Most calls in one wallet_sendCalls batch (default 100). */
  maxBatchSize?: number
  /** Answer eth_sign, which signs any 32-byte hash; off by default, as in MetaMask (-32601). */
  enableEthSign?: boolean
  /**
   * Most polled filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) installed at once; one
   * more gets -32005 (default 10000, docs/filters.md).
   */
  maxFilters?: number
  /** Most polled filters one Origin installs at once; callers without an Origin header count as one (default 1000). */
  maxFiltersPerOrigin?: number
  /**
   * Build output of the developer's contracts (Foundry's out/, Hardhat's artifacts/, ABI files): the console page
   * and the terminal log decode with it.
   */
  abi?: string[]
}

export { EXECUTOR_ADDRESS }

/** Loopback addresses: only this machine can reach the server, so a caller without an Origin is its owner. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}

export type Flashchain = {
  /** `http://HOST:PORT` of the JSON-RPC endpoint; the same with `ws://` serves WebSocket. */
  url: string
  /**
   * Calls a method in process, as an EIP-1193 provider would; failures reject with the RpcError. A method of the
   * registry is typed with its params and result; any other name is accepted untyped (it answers -32601).
   */
  request<const Method extends string>(args: {
    method: Method
    params?: Method extends keyof RpcSchema ? RpcSchema[Method]['params'] : unknown
  }): Promise<Method extends keyof RpcSchema ? RpcSchema[Method]['result'] : unknown>
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
  // anvil_setLoggingEnabled turns every line off and on again.
  let logging = true
  const print = options.log
  const log = print === undefined ? undefined : (line: string) => logging && print(line)
  // Read before anything is opened: a path that is not there stops the start with nothing to close.
  const projectAbis = loadProjectAbis(options.abi ?? [], options.log)
  const database = openDatabase(options)
  let chain: Chain
  try {
    chain = await createChain({
      ...options,
      log,
      logAbis: projectAbis,
      database,
      predeploys: { [EXECUTOR_ADDRESS]: { code: executorCode }, ...options.predeploys },
    })
  } catch (error) {
    database.close()
    throw error
  }
  const { close: closeChain, ...services } = chain
  const wallet = createWallet({
    chain: services,
    database,
    accounts: services.spec.accounts,
    approval: options.approval ?? 'approve',
    approvalTimeout: options.approvalTimeout ?? 300_000,
    walletToken: options.walletToken,
    loopback: isLoopback(host),
    maxBatchSize: options.maxBatchSize ?? 100,
    allowedOrigins: options.allowedOrigins,
    enableEthSign: options.enableEthSign,
    log: log ?? (() => {}),
  })
  // Snapshots, reverts and resets take the wallet's state along with the chain's.
  services.control.participate(wallet.testControl)
  if (!isLoopback(host) && options.walletToken === undefined) {
    options.log?.(`warning: bound to ${host} without --wallet-token: wallet and admin methods will refuse every caller`)
  }
  const node = {
    setLogging(enabled: boolean) {
      logging = enabled
    },
    projectAbis,
    defaultBlock: options.defaultBlockTag ?? 'latest',
    maxMineBlocks: BigInt(options.maxMineBlocks ?? 10_000),
  }
  const filters = createFilters(services, { maxFilters: options.maxFilters, maxFiltersPerOrigin: options.maxFiltersPerOrigin })
  const dispatch = createDispatcher({
    methods,
    context: (request) => ({ ...services, wallet, node, filters, request }),
    maxBatchLength: options.maxBatchLength ?? 1000,
    revertCode: chain.spec.revertCode,
    fork: chain.fork.info() !== undefined,
    onInternalError: (error, method) => options.log?.(`internal error in ${method}: ${error instanceof Error ? error.stack : error}`),
  })
  const server = await createHttpServer({
    host,
    port: options.port ?? 8545,
    dispatch,
    maxBodyBytes: options.maxBodyBytes,
    maxConnections: options.maxConnections,
    maxBufferedBytes: options.maxBufferedBytes,
    writeTimeout: options.writeTimeout,
    maxTotalOutputBytes: options.maxTotalOutputBytes,
    allowedHosts: options.allowedHosts,
    consolePage: loadConsolePage(),
    websocket: {
      streams: { '/flashblocks': createFlashblocksStream(services.events) },
      maxOutputBytes: options.maxOutputBytes,
      maxSubscriptions: options.maxSubscriptions,
      maxTotalSubscriptions: options.maxTotalSubscriptions,
    },
    log: options.log,
  })
  let id = 0
  return {
    url: server.url,
    chain: services,
    wallet,
    async request({ method, params }) {
      const response = (await dispatch(
        { jsonrpc: '2.0', id: ++id, method, params: params ?? [] },
        { origin: undefined, authorization: undefined },
      )) as { result?: unknown; error?: { code: number; message: string; data?: unknown } }
      if (response.error !== undefined) {
        throw new RpcError(response.error.message, { code: response.error.code, data: response.error.data })
      }
      // A result encoded where it was made (a trace's) is handed to a caller in this process as plain data.
      return (response.result instanceof EncodedJson ? response.result.toJSON() : response.result) as never
    },
    async close() {
      wallet.close()
      filters.close()
      await server.close()
      await closeChain()
      closeDatabase(database, options)
    },
  }
}
