/**
 * flashchain as a viem chain (`import { flashchain } from 'flashchain/chains'`), set up as viem's Base
 * pre-confirmation chains are: `experimental_preconfirmationTime` makes a client read `pending` by default (its
 * `experimental_blockTag`) and waitForTransactionReceipt poll once per flashblock, and `blockTime` makes its default
 * polling interval half a block. viem sends eth_estimateGas without a block unless it has state overrides, and the
 * node estimates at `latest` then (as geth), so the chain also fills a transaction's gas at `pending`: a call to a
 * contract deployed a flashblock ago is estimated where the contract is. docs/clients.md says what each client needs.
 */
import { defineChain } from 'viem'
import { estimateGas } from 'viem/actions'

import type { Chain, Client, EstimateGasParameters, PrepareTransactionRequestParameters } from 'viem'

/** The command line's defaults: where `npx flashchain` listens, its chain id, block time and flashblock interval. */
const DEFAULT_URL = 'http://127.0.0.1:8545'
const DEFAULT_CHAIN_ID = 31337
const DEFAULT_BLOCK_TIME = 2000
const DEFAULT_FLASHBLOCK_INTERVAL = 200

export type FlashchainChainOptions = {
  /** The node's HTTP URL; its WebSocket is the same address with ws(s):. Default http://127.0.0.1:8545. */
  url?: string
  /** Default 31337, as `--chain-id`. */
  chainId?: number
  /** ms between sealed blocks, as `--block-time`. Default 2000. */
  blockTime?: number
  /** ms between flashblocks, as `--flashblock-interval`. Default 200. */
  flashblockInterval?: number
  /** Default `flashchain`. */
  name?: string
}

/** A flashchain node as a viem chain: another URL, chain id or clock than the command line's defaults. */
export function flashchainChain(options: FlashchainChainOptions = {}): Chain {
  const url = options.url ?? DEFAULT_URL
  return defineChain({
    id: options.chainId ?? DEFAULT_CHAIN_ID,
    name: options.name ?? 'flashchain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url], webSocket: [url.replace(/^http/, 'ws')] } },
    blockTime: options.blockTime ?? DEFAULT_BLOCK_TIME,
    experimental_preconfirmationTime: options.flashblockInterval ?? DEFAULT_FLASHBLOCK_INTERVAL,
    // Before viem fills anything: a gas limit set here is one it no longer estimates.
    prepareTransactionRequest: [estimateAtPending, { runAt: ['beforeFillTransaction'] }],
    testnet: true,
  })
}

/**
 * Fills `gas` by an estimate at `pending`, where viem would estimate at the node's default (`latest`), when the
 * request asks for gas and has none.
 */
async function estimateAtPending(
  request: PrepareTransactionRequestParameters,
  { client }: { client: Client },
): Promise<PrepareTransactionRequestParameters> {
  if (request.gas !== undefined || request.parameters?.includes('gas') !== true) return request
  // prepare: [] fills nothing more, so the estimate's own preparation does not call this again.
  const gas = await estimateGas(client, { ...request, parameters: undefined, prepare: [], blockTag: 'pending' } as unknown as EstimateGasParameters)
  return { ...request, gas }
}

/** `npx flashchain` with its defaults: chain id 31337 on http://127.0.0.1:8545, 2 s blocks, 200 ms flashblocks. */
export const flashchain: Chain = flashchainChain()
