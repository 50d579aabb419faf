// A chain with its wallet and its JSON-RPC dispatcher, not yet served: createFlashchain (index.ts) serves one over
// HTTP and WebSocket, and the warm-up (runtime/warmUp.ts) drives a scratch one in process.
import { createChain } from './chain/chain.ts'
import { closeDatabase, openDatabase } from './chain/storage/database.ts'
import { snapshotChain } from './chain/storage/snapshot.ts'
import { RpcError } from './rpc/errors.ts'
import { EncodedJson } from './runtime/encodedJson.ts'
import { createDispatcher } from './rpc/dispatch.ts'
import { createFilters } from './rpc/filters.ts'
import { methods } from './rpc/methods.ts'
import { loadProjectAbis } from './server/projectAbis.ts'
import { EXECUTOR_ADDRESS, executorCode } from './wallet/executor.ts'
import { createWallet } from './wallet/wallet.ts'

import type { ChainServices } from './chain/chain.ts'
import type { Dispatcher, Forwarding } from './rpc/dispatch.ts'
import type { FollowStatus } from './rpc/method.ts'
import type { RpcSchema } from './rpc/methods.ts'
import type { FlashchainOptions } from './options.ts'
import type { Wallet } from './wallet/wallet.ts'

export type Node = {
  chain: ChainServices
  wallet: Wallet
  dispatch: Dispatcher
  /** Calls a method in process, as an EIP-1193 provider would (Flashchain['request']). */
  request<const Method extends string>(args: {
    method: Method
    params?: Method extends keyof RpcSchema ? RpcSchema[Method]['params'] : unknown
  }): Promise<Method extends keyof RpcSchema ? RpcSchema[Method]['result'] : unknown>
  /** The chain as stored now, for a replica to start from (GET /snapshot; chain/storage/snapshot.ts). */
  snapshot(): Promise<Buffer>
  /**
   * Closes the wallet and the filters, then awaits `drain` (a server finishing the requests in flight, which a
   * closed wallet no longer holds waiting for an approval), then closes the chain and its database.
   */
  close(drain?: () => Promise<void>): Promise<void>
}

/** Loopback addresses: only this machine can reach the server, so a caller without an Origin is its owner. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}

/**
 * The meta row of a snapshot that holds the sequencer's options a replica must run with to answer as it does: they
 * change what execution allows (the code size limit) or what an answer says (a revert's code, the gas cap, the
 * default block), and no block or genesis records them.
 */
export const SEQUENCER_OPTIONS = 'sequencer_options'

export type SequencerOptions = Pick<
  FlashchainOptions,
  'codeSizeLimit' | 'disableCodeSizeLimit' | 'revertCode' | 'rpcEvmTimeout' | 'traceMaxBytes' | 'defaultBlockTag'
> & { rpcGasCap?: string | undefined }

function sequencerOptions(options: FlashchainOptions): SequencerOptions {
  const { codeSizeLimit, disableCodeSizeLimit, revertCode, rpcEvmTimeout, traceMaxBytes, defaultBlockTag, rpcGasCap } = options
  return { codeSizeLimit, disableCodeSizeLimit, revertCode, rpcEvmTimeout, traceMaxBytes, defaultBlockTag, rpcGasCap: rpcGasCap?.toString() }
}

/**
 * The meta row of a snapshot that says where it stands in the node's flashblocks stream: the frames before
 * `sequence` are in it (their blocks' state, and their test-control changes), and so are the first `unsent` changes
 * of frame `sequence`, made before the copy and sent with that frame. What a replica skips of them (replica.ts).
 */
export const STREAM_POSITION = 'stream_position'

export type StreamPosition = { sequence: number; unsent: number }

/** What makes a node a replica (follow/replica.ts): where its writes go, and how it follows. */
export type Following = { forward: Forwarding; status: () => FollowStatus }

export async function createNode(options: FlashchainOptions, following?: Following): Promise<Node> {
  const host = options.host ?? '127.0.0.1'
  // anvil_setLoggingEnabled turns every line off and on again.
  let logging = true
  const print = options.log
  const log = print === undefined ? undefined : (line: string) => logging && print(line)
  // Read before anything is opened: a path that is not there stops the start with nothing to close.
  const projectAbis = loadProjectAbis(options.abi ?? [], options.log)
  const database = openDatabase(options)
  let chain: Awaited<ReturnType<typeof createChain>>
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
    followStatus: following?.status,
  }
  const filters = createFilters(services, { maxFilters: options.maxFilters, maxFiltersPerOrigin: options.maxFiltersPerOrigin })
  const dispatch = createDispatcher({
    methods,
    context: (request) => ({ ...services, wallet, node, filters, request }),
    maxBatchLength: options.maxBatchLength ?? 1000,
    revertCode: chain.spec.revertCode,
    fork: chain.fork.info() !== undefined,
    forward: following?.forward,
    onInternalError: (error, method) => options.log?.(`internal error in ${method}: ${error instanceof Error ? error.stack : error}`),
  })
  let id = 0
  let taking: Promise<Buffer> | undefined
  return {
    chain: services,
    wallet,
    dispatch,
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
    // Replicas that start together share one copy.
    snapshot: () =>
      (taking ??= snapshotChain(database, () => {
        const { sequence, edits } = services.events.unsentEdits()
        return {
          [SEQUENCER_OPTIONS]: JSON.stringify(sequencerOptions(options)),
          [STREAM_POSITION]: JSON.stringify({ sequence, unsent: edits.length } satisfies StreamPosition),
        }
      }).finally(() => {
        taking = undefined
      })),
    async close(drain) {
      wallet.close()
      filters.close()
      await drain?.()
      await closeChain()
      closeDatabase(database, options)
    },
  }
}
