// The options of createFlashchain (index.ts), which builds its node (node.ts) from them and serves it.
import type { ChainOptions } from './chain/spec/config.ts'
import type { ApprovalDecision } from './wallet/approvals.ts'

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

/** The limits the options set on the HTTP server (a replica's too, follow/replica.ts). */
export function transportLimits(options: FlashchainOptions) {
  const { maxBodyBytes, maxConnections, maxBufferedBytes, writeTimeout, maxTotalOutputBytes, allowedHosts } = options
  return { maxBodyBytes, maxConnections, maxBufferedBytes, writeTimeout, maxTotalOutputBytes, allowedHosts }
}

/** The limits the options set on each WebSocket connection. */
export function webSocketLimits(options: FlashchainOptions) {
  const { maxOutputBytes, maxSubscriptions, maxTotalSubscriptions } = options
  return { maxOutputBytes, maxSubscriptions, maxTotalSubscriptions }
}
