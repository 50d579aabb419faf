/**
 * A fork's state as its upstream had it at the fork block (docs/fork.md): accounts and storage slots, read once each.
 * Concurrent reads of one account or slot share one call; what is read is answered from the cache next time, and
 * written to it as it arrives. Every read names the fork block by hash (EIP-1898), so no answer can come from
 * another block, not even after a reorg of the upstream.
 */
import { UpstreamError } from '../errors.ts'

import type { Hex } from '../../hex.ts'
import type { UpstreamTransport } from './transport.ts'

/** The block a fork starts from, pinned: its chain, number and hash. */
export type ForkBlock = { chainId: bigint; number: bigint; hash: Hex }

/** The fork block as the upstream answered eth_getBlockByNumber: its header fields, as JSON-RPC quantities and data. */
export type UpstreamHeader = Record<string, unknown>

export type UpstreamAccount = { balance: bigint; nonce: bigint; code: Hex }

/** Where answers are kept for the next read (cache.ts keeps them in SQLite): addresses lowercase, slots 32 bytes. */
export type UpstreamStateCache = {
  account(address: Hex): UpstreamAccount | undefined
  storage(address: Hex, slot: Hex): bigint | undefined
  putAccount(address: Hex, account: UpstreamAccount): void
  putStorage(address: Hex, slot: Hex, value: bigint): void
}

export type UpstreamState = {
  readonly fork: ForkBlock
  account(address: Hex): Promise<UpstreamAccount>
  /** The slot's value as a number (eth_getStorageAt's 32 bytes, big-endian). */
  storage(address: Hex, slot: Hex): Promise<bigint>
}

/**
 * The fork block: `blockNumber`, or the upstream's latest at this moment, with its hash, the upstream's chain id and
 * head, asked in one batch.
 */
export async function pinForkBlock(
  transport: UpstreamTransport,
  blockNumber?: bigint,
): Promise<ForkBlock & { header: UpstreamHeader; head: bigint }> {
  const tag = blockNumber === undefined ? 'latest' : `0x${blockNumber.toString(16)}`
  const what = `to name block ${blockNumber ?? 'latest'}`
  const [chainId, head, block] = await Promise.all([
    transport.call('eth_chainId', [], 'eth_chainId'),
    transport.call('eth_blockNumber', [], 'eth_blockNumber'),
    transport.call('eth_getBlockByNumber', [tag, false], `eth_getBlockByNumber ${tag}`),
  ])
  if (block === null) throw new UpstreamError({ upstream: transport.upstream, what, detail: 'it has no such block' })
  const header = (typeof block === 'object' && block !== null ? block : {}) as UpstreamHeader
  return {
    chainId: quantity(chainId, transport, 'eth_chainId'),
    number: quantity(header.number, transport, what),
    hash: hash(header.hash, transport, what),
    header,
    head: quantity(head, transport, 'eth_blockNumber'),
  }
}

export function createUpstreamState(options: { transport: UpstreamTransport; fork: ForkBlock; cache?: UpstreamStateCache }): UpstreamState {
  const { transport, fork, cache } = options
  const where = `at block ${fork.number}`
  // The fork block as reads name it: by its hash (EIP-1898), so that a reorganised upstream can never answer for
  // another block; by its number once the upstream has refused a hash, as nodes from before EIP-1898 do.
  let at: { blockHash: Hex } | Hex = { blockHash: fork.hash }
  let byNumber: Promise<void> | undefined

  /** `method` with the params `params` makes of the block's name, named by number from the first refusal of a hash on. */
  async function read(method: string, params: (block: typeof at) => unknown[], what: string): Promise<unknown> {
    const named = at
    try {
      return await transport.call(method, params(named), what)
    } catch (error) {
      if (typeof named !== 'object' || !refusesBlockHash(error)) throw error
      byNumber ??= nameByNumber(what)
      await byNumber
      return transport.call(method, params(at), what)
    }
  }

  /** Names the fork block by number from now on, once the upstream's block of that number is still the one pinned. */
  async function nameByNumber(what: string): Promise<void> {
    const number = `0x${fork.number.toString(16)}` as Hex
    const block = await transport.call('eth_getBlockByNumber', [number, false], `eth_getBlockByNumber ${number}`)
    const found = (block as { hash?: unknown } | null)?.hash
    if (typeof found !== 'string' || found.toLowerCase() !== fork.hash) {
      throw new UpstreamError({
        upstream: transport.upstream,
        what,
        detail: `it takes no block hash (EIP-1898), and its block ${fork.number} is no longer ${fork.hash}`,
      })
    }
    at = number
  }
  // One promise per key in flight: a second read of it waits for the first one's call.
  const inFlight = new Map<string, Promise<unknown>>()

  function once<T>(key: string, read: () => Promise<T>): Promise<T> {
    const pending = inFlight.get(key)
    if (pending !== undefined) return pending as Promise<T>
    const started = read().finally(() => inFlight.delete(key))
    inFlight.set(key, started)
    return started
  }

  async function readAccount(address: Hex): Promise<UpstreamAccount> {
    const what = (method: string) => `${method} ${address} ${where}`
    const [balance, nonce, code] = await Promise.all([
      read('eth_getBalance', (block) => [address, block], what('eth_getBalance')),
      read('eth_getTransactionCount', (block) => [address, block], what('eth_getTransactionCount')),
      read('eth_getCode', (block) => [address, block], what('eth_getCode')),
    ])
    const account = {
      balance: quantity(balance, transport, what('eth_getBalance')),
      nonce: quantity(nonce, transport, what('eth_getTransactionCount')),
      code: bytes(code, transport, what('eth_getCode')),
    }
    cache?.putAccount(address, account)
    return account
  }

  async function readStorage(address: Hex, slot: Hex): Promise<bigint> {
    const what = `eth_getStorageAt ${address} ${slot} ${where}`
    const value = quantity(await read('eth_getStorageAt', (block) => [address, slot, block], what), transport, what)
    cache?.putStorage(address, slot, value)
    return value
  }

  return {
    fork,
    account(address) {
      const key = address.toLowerCase() as Hex
      const cached = cache?.account(key)
      return cached === undefined ? once(`account ${key}`, () => readAccount(key)) : Promise.resolve(cached)
    },
    storage(address, slot) {
      const key = address.toLowerCase() as Hex
      const slotKey = toWord(slot)
      const cached = cache?.storage(key, slotKey)
      return cached === undefined ? once(`storage ${key} ${slotKey}`, () => readStorage(key, slotKey)) : Promise.resolve(cached)
    },
  }
}

/**
 * Whether the upstream refused a read because it names the block by hash: invalid params (-32602), or the words of a
 * node that cannot read the object (geth before EIP-1898: `cannot unmarshal object into Go value of type string`).
 */
function refusesBlockHash(error: unknown): boolean {
  const refusal = error instanceof UpstreamError ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined
  if (refusal === undefined) return false
  return refusal.code === -32602 || (typeof refusal.message === 'string' && /unmarshal|block ?hash/i.test(refusal.message))
}

/** A slot as 32 bytes of lowercase hex, the one form the keys and the cache hold. */
export function toWord(slot: Hex): Hex {
  return `0x${BigInt(slot).toString(16).padStart(64, '0')}`
}

// What the upstream answers is checked before it is believed: a wrong type is its failure, not a zero.

function malformed(transport: UpstreamTransport, what: string, value: unknown): UpstreamError {
  return new UpstreamError({ upstream: transport.upstream, what, detail: `answered a malformed value: ${JSON.stringify(value)}` })
}

/** A number of up to 32 bytes: a quantity, or a storage word (some nodes drop its leading zeros). */
function quantity(value: unknown, transport: UpstreamTransport, what: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw malformed(transport, what, value)
  return BigInt(value)
}

function bytes(value: unknown, transport: UpstreamTransport, what: string): Hex {
  if (typeof value !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(value)) throw malformed(transport, what, value)
  return value.toLowerCase() as Hex
}

function hash(value: unknown, transport: UpstreamTransport, what: string): Hex {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) throw malformed(transport, what, value)
  return value.toLowerCase() as Hex
}
