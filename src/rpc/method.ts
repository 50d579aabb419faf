import type { z } from 'zod'

import type { UpstreamScope } from '../chain/services/fork.ts'
import type { ChainServices } from '../chain/chain.ts'
import type { Wallet } from '../wallet/wallet.ts'
import type { Filters } from './filters.ts'
import type { Hex } from '../hex.ts'
import type { Session } from './session.ts'

/**
 * What the transport knows about one request; wallet authorization decides on it. Over WebSocket, the headers are
 * those of the upgrade request, so the same rules apply as over HTTP.
 */
export type RequestContext = {
  /** The HTTP `Origin` header, when a browser sent the request. */
  origin: string | undefined
  /** The HTTP `Authorization` header. */
  authorization: string | undefined
  /** The connection's subscriptions, when it can carry notifications (WebSocket); undefined over HTTP. */
  session?: Session | undefined
}

/** What the node itself lets methods change, beside the chain and the wallet. */
/** One item of a contract's ABI, as solc writes it: an event, a function, an error… */
export type AbiItem = { type: string; name?: string; inputs?: AbiParameter[] } & Record<string, unknown>
export type AbiParameter = { type: string; name?: string; indexed?: boolean; components?: AbiParameter[] }

/** How a replica follows its sequencer (docs/scaling-out.md). */
export type FollowStatus = {
  /** The sequencer's flashblocks stream, and its JSON-RPC endpoint, which writes are forwarded to. */
  source: string
  rpc: string
  /**
   * `starting` until the first snapshot is loaded; `following` while frames are applied as they come; `catching up`
   * while a gap is filled; `reconnecting` while the stream is down; `resyncing` while a new snapshot is loaded.
   */
  state: 'starting' | 'following' | 'catching up' | 'reconnecting' | 'resyncing'
  head: { number: Hex; hash: Hex }
  /** The newest flashblock applied of the block being built; null when none is. */
  pending: { number: Hex; index: number } | null
  /** ms the replica has been behind the stream: since the oldest frame it received and has not applied yet. */
  lagMs: number
  /** Frames applied since the start. */
  frames: number
  /** Frames missed or out of order, and those fetched again with flashchain_getFlashblocks to fill them. */
  gaps: number
  refetchedFrames: number
  /**
   * Connections of the stream after the first; snapshots loaded after the first, and why the last one was (the wait
   * for a block begun before the replica connected, at its start, is not one).
   */
  reconnects: number
  resyncs: number
  lastResync: string | null
}

export type NodeControl = {
  /** Turns the node's log lines on or off (anvil_setLoggingEnabled). */
  setLogging(enabled: boolean): void
  /** The ABIs of the developer's contracts, read from their build output at start (`--abi`). */
  projectAbis: readonly AbiItem[]
  /**
   * The block a state read that names none reads (`--default-block-tag`): `latest`, as the method reference has it,
   * or `pending`, for clients that read without a tag right after a pre-confirmed receipt (docs/chain.md).
   */
  defaultBlock: 'latest' | 'pending'
  /** The most blocks one anvil_mine or hardhat_mine may seal (`--max-mine-blocks`). */
  maxMineBlocks: bigint
  /** How a replica follows its sequencer (flashchain_followStatus); undefined on any other node. */
  followStatus?: (() => FollowStatus) | undefined
}

/**
 * What a handler is handed: the chain's services by name (blocks, state, calls, pool, producer, control, events,
 * spec), so that it names the one it reads, and the wallet, the node, the polled filters and who asks.
 */
export type MethodContext = ChainServices & {
  wallet: Wallet
  node: NodeControl
  /** The polled filters, shared by every connection (eth_newFilter and its kin). */
  filters: Filters
  /** Who sent the request; the wallet decides what it may do. */
  request: RequestContext
}

/**
 * Who may call a method (docs/architecture.md, "Who may call what"):
 * - `public`: anyone, from any origin. It reads the chain, or changes it only as anyone may (a signed transaction).
 * - `grant`: the wallet's accounts, for the owner and for the origins granted them (EIP-1102, EIP-2255). Dispatch
 *   hands the caller to the wallet, which decides per account: an origin without a grant is refused with 4100, or
 *   answered with none of the accounts (eth_accounts), or asked for a grant (eth_requestAccounts).
 * - `owner`: the node's owner alone (no Origin, and the wallet token where one is needed). Dispatch refuses anyone
 *   else with 4100 before it reads the params.
 */
export type Access = (typeof ACCESS)[number]
export const ACCESS = ['public', 'grant', 'owner'] as const

/**
 * One JSON-RPC method: its wire name, who may call it, the schema that turns wire params into typed values, and the
 * handler, which receives only valid input from a caller its access admits and declares the result it answers with.
 * A schema failure becomes -32602 naming the bad argument. A handler maps JSON to the chain or the wallet and back;
 * the logic lives there.
 */
export type Method<Name extends string = string, Params extends z.ZodType = z.ZodType, Result = unknown> = {
  name: Name
  /** Required, with no default: a method that does not say who may call it does not compile. */
  access: Access
  params: Params
  handler: (params: z.output<Params>, context: MethodContext) => Result | Promise<Result>
  /** On a fork, when the upstream answers instead of the handler (upstream.ts); never on a chain of its own. */
  upstream?: UpstreamRule
}

/**
 * When a fork's upstream answers a request (docs/fork.md#what-the-upstream-answers). `block`: the param at that
 * index names a block, and the upstream answers for it in `scope` (chain/services/fork.ts: a block's contents at
 * and before the fork block, state before it); the request goes to the upstream naming that block by number, and
 * its answer is kept unless `kept` is false (a trace, which may be large). `byHash`: a transaction lookup by hash
 * (the first param) that this chain answers with null, for a hash it does not hold at all, goes to the upstream,
 * whose answer counts if its `byHash` field places it at or before the fork block. `transaction`: the param at that
 * index is a transaction hash; one this chain does not hold, which the upstream places at or before the fork block,
 * is the upstream's to answer for (a trace, not kept).
 */
export type UpstreamRule = { block: number; scope: UpstreamScope; kept?: false } | { byHash: 'number' | 'blockNumber' } | { transaction: number }

export function defineMethod<const Name extends string, Params extends z.ZodType, Result>(
  method: Method<Name, Params, Result>,
): Method<Name, Params, Result> {
  return method
}

/** The registry: each method by its wire name. A Map, so `constructor` or `__proto__` never resolve to Object members. */
export function createRegistry(list: readonly Method[]): Map<string, Method> {
  const registry = new Map<string, Method>()
  for (const method of list) {
    if (registry.has(method.name)) throw new Error(`${method.name} is defined twice`)
    // The type requires it; this holds for a method built where the type was not checked.
    if (!ACCESS.includes(method.access)) throw new Error(`${method.name} does not declare who may call it (access)`)
    registry.set(method.name, method)
  }
  return registry
}

/** The wire params a method accepts and the result it answers with, as viem's EIP-1193 schemas type them. */
export type MethodSchema<M> = M extends Method<string, infer Params, infer Result> ? { params: z.input<Params>; result: Result } : never
