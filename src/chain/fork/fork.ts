/**
 * Fork mode's start (docs/fork.md): the upstream pinned at the fork block, its state beneath the chain's history, and
 * the fork block as the chain's first block, with the dev accounts funded and the dev chain's contracts put where the
 * upstream has no code.
 */
import { join } from 'node:path'

import { createBlockFromRPC } from '@ethereumjs/block'
import { KECCAK256_NULL, KECCAK256_RLP, bytesToHex, equalsBytes } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { RefusedError } from '../errors.ts'
import { prefetch, untilFetched } from '../state/miss.ts'
import { createStateTrie } from '../state/trie.ts'
import { createStateDiff } from '../state/types.ts'
import { keepPin, keptPin, openForkCache } from './cache.ts'
import { createUpstreamHistory } from './history.ts'
import { createRemoteState, upstreamSource } from './remoteState.ts'
import { createUpstreamTransport } from './transport.ts'
import { createUpstreamState, pinForkBlock } from './upstream.ts'

import type { Block } from '@ethereumjs/block'
import type { JSONRPCBlock } from '@ethereumjs/block'
import type { SealedBlock } from '../blocks/types.ts'
import type { ForkOptions, HardforkName } from '../spec/config.ts'
import type { GenesisSpec } from '../spec/genesis.ts'
import type { StateHistory } from '../state/history.ts'
import type { StateTrie } from '../state/trie.ts'
import type { StateDiff } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { ForkCache } from './cache.ts'
import type { UpstreamHistory } from './history.ts'
import type { UpstreamTransport } from './transport.ts'
import type { RemoteState } from './remoteState.ts'
import type { ForkBlock, UpstreamHeader } from './upstream.ts'

/** Where anvil_reset's `forking` moves a fork: another block, of its upstream or of another one. */
export type ForkTarget = { url?: string; blockNumber?: bigint }

/** The file the fork cache is kept in, in its directory. */
export const FORK_CACHE_FILE = 'fork-cache.sqlite'

/** A fork, open: the pinned block, the upstream's state at it, and what closes the cache. */
export type OpenFork = {
  readonly block: ForkBlock
  readonly header: UpstreamHeader
  /** The upstream as errors and anvil_nodeInfo name it: scheme, host and port. */
  readonly upstream: string
  readonly url: string
  readonly remote: RemoteState
  /** The upstream's blocks, transactions, receipts and logs up to the fork block, and its state before it. */
  readonly history: UpstreamHistory
  /** Whether opening it asked the upstream (the fork block was not kept from a start before): a new fork. */
  readonly asked: boolean
  close(): void
}

/**
 * Pins the fork block and opens the cache. `resume` is the fork a data dir holds: it is pinned again by number, and
 * must be the same block.
 */
export async function openFork(options: ForkOptions, context: { dataDir?: string; deadlineMs?: number; resume?: ForkBlock }): Promise<OpenFork> {
  const { resume } = context
  const transport = createUpstreamTransport({
    url: options.url,
    retries: options.retries,
    retryBackoffMs: options.retryBackoffMs,
    deadlineMs: context.deadlineMs,
  })
  const dir = options.cacheDir ?? context.dataDir
  const cacheFile = dir === undefined || dir === false ? undefined : join(dir, FORK_CACHE_FILE)
  const number = options.blockNumber ?? resume?.number
  const pinned = await pin(transport, options.url, number, cacheFile)
  const block: ForkBlock = { chainId: pinned.chainId, number: pinned.number, hash: pinned.hash }
  if (resume !== undefined && (resume.hash !== block.hash || resume.chainId !== block.chainId)) {
    throw new RefusedError(
      `the data dir holds a fork of block ${resume.number} (${resume.hash}) of chain ${resume.chainId}, and the upstream's block ${block.number} is ${block.hash} of chain ${block.chainId}: start with --fresh to fork again`,
    )
  }
  const cache: ForkCache | undefined = cacheFile === undefined ? undefined : openForkCache({ path: cacheFile, fork: block, endpoint: options.url })
  const remote = createRemoteState(upstreamSource(createUpstreamState({ transport, fork: block, cache })))
  const history = createUpstreamHistory({ transport, fork: block, cache })
  return {
    block,
    header: pinned.header,
    upstream: transport.upstream,
    url: options.url,
    remote,
    history,
    asked: pinned.asked,
    close: () => cache?.close(),
  }
}

/**
 * The fork block, pinned: from the cache when a start before pinned that block deep enough below the upstream's head
 * (a warm start there asks the upstream nothing), else by the upstream, and kept if it is that deep.
 */
async function pin(transport: UpstreamTransport, url: string, number: bigint | undefined, cacheFile: string | undefined) {
  const kept = number === undefined || cacheFile === undefined ? undefined : keptPin(cacheFile, url, number)
  if (kept !== undefined) return { chainId: kept.chainId, number: number!, hash: kept.header.hash as Hex, header: kept.header, asked: false }
  const pinned = await pinForkBlock(transport, number)
  if (cacheFile !== undefined) keepPin(cacheFile, url, pinned)
  return { ...pinned, asked: true }
}

/**
 * The hardfork whose header the fork block has: osaka (the default) from Prague's requestsHash on, cancun from the
 * beacon root, shanghai from withdrawals, london before. A fork runs its local blocks by it unless told another.
 */
export function hardforkOfHeader(header: UpstreamHeader): HardforkName {
  if (header.requestsHash != null) return 'osaka'
  if (header.parentBeaconBlockRoot != null) return 'cancun'
  if (header.withdrawalsRoot != null) return 'shanghai'
  return 'london'
}

/**
 * The fork block as the chain's first block, and its writes: the dev accounts get the dev balance and keep the
 * upstream's nonce and code; the dev chain's other accounts (the system contracts, the wallet's batch executor, the
 * predeploys) are written only where the upstream has no code at that address.
 */
export async function forkFirstBlock(
  fork: OpenFork,
  spec: GenesisSpec,
  devAccounts: ReadonlySet<Hex>,
): Promise<{ block: Block; diff: StateDiff; trie: StateTrie }> {
  const diff = createStateDiff()
  const addresses = [...spec.alloc.keys()]
  // Every account's read is started before the first is awaited: one batch.
  const upstream = await Promise.all(addresses.map((address) => untilFetched(() => fork.remote.account(address))))
  for (const [index, address] of addresses.entries()) {
    const allocated = spec.alloc.get(address)!
    const there = upstream[index]
    if (devAccounts.has(address)) {
      diff.accounts.set(address, {
        nonce: there?.nonce ?? 0n,
        balance: allocated.balance,
        codeHash: there?.codeHash ?? KECCAK256_NULL,
        storageRoot: there?.storageRoot ?? KECCAK256_RLP,
      })
      continue
    }
    if (there !== undefined && !equalsBytes(there.codeHash, KECCAK256_NULL)) continue
    let codeHash = KECCAK256_NULL
    if (allocated.code.length > 0) {
      codeHash = keccak256(allocated.code)
      diff.code.set(bytesToHex(codeHash) as Hex, allocated.code)
    }
    diff.accounts.set(address, { nonce: allocated.nonce, balance: there?.balance ?? allocated.balance, codeHash, storageRoot: KECCAK256_RLP })
    if (allocated.storage.size > 0) diff.storage.set(address, { cleared: true, slots: new Map(allocated.storage) })
  }
  const trie = await createStateTrie(
    [...diff.accounts].map(([address, account]) => [address, account!, diff.storage.get(address)?.slots ?? new Map()] as const),
  )
  for (const [address, account] of diff.accounts) {
    if (account !== null && diff.storage.has(address)) diff.accounts.set(address, { ...account, storageRoot: trie.storageRoot(address) })
  }
  // The body is not fetched: the fork block's transactions are the upstream's to answer.
  const rpc = { ...fork.header, transactions: [], uncles: [], withdrawals: fork.header.withdrawalsRoot == null ? undefined : [] }
  const block = createBlockFromRPC(rpc as unknown as JSONRPCBlock, [], { common: spec.common, setHardfork: true })
  return { block, diff, trie }
}

/**
 * Fetches the upstream's code of the accounts a resumed fork's blocks wrote without deploying it (a contract's
 * balance or nonce changed): the store keeps the code the chain deployed, and the rest comes with the account.
 */
export async function fetchUpstreamCode(history: StateHistory, remote: RemoteState): Promise<void> {
  const state = history.at(BigInt(Number.MAX_SAFE_INTEGER))
  const reads: (() => unknown)[] = []
  for (const [address, account] of history.entries()) {
    if (equalsBytes(account.codeHash, KECCAK256_NULL) || state.code(bytesToHex(account.codeHash) as Hex) !== undefined) continue
    reads.push(() => remote.account(address))
  }
  await prefetch(reads)
}

/**
 * Another fork point of the same chain, opened beside `current` for anvil_reset's `forking` (the same upstream and
 * its latest block where the target leaves them out): its first block and writes, and the fork, which the caller
 * adopts or closes. Nothing of the chain changes here.
 */
export async function openRefork(
  current: OpenFork,
  target: ForkTarget,
  context: { options: ForkOptions; dataDir?: string; deadlineMs?: number; chainId: bigint; spec: GenesisSpec; devAccounts: ReadonlySet<Hex> },
): Promise<{ next: OpenFork; sealed: SealedBlock; diff: StateDiff; upstream: RemoteState }> {
  const { options, chainId } = context
  const next = await openFork({ ...options, url: target.url ?? current.url, blockNumber: target.blockNumber }, context)
  try {
    // The chain's id and rules were set by the first fork; another chain's state under them would lie.
    if (options.chainId === undefined && next.block.chainId !== chainId) {
      throw new RefusedError(`${next.upstream} runs chain ${next.block.chainId}, and this fork chain ${chainId}: restart with --fork-url to fork it`)
    }
    const { block, diff } = await forkFirstBlock(next, context.spec, context.devAccounts)
    const sealed = { block, hash: bytesToHex(block.hash()) as Hex, number: block.header.number, senders: [], receipts: [] }
    return { next, sealed, diff, upstream: next.remote }
  } catch (error) {
    next.close()
    throw error
  }
}
