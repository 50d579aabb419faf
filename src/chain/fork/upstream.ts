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

/**
 * The call a run makes, as far as what it reads depends on it (its fees change no read of state), and the local
 * state it runs on where that differs from the upstream's, as geth's state overrides (hex quantities and words).
 */
export type WarmCall = { from?: Hex; to?: Hex | null; data?: Hex; value?: bigint; overrides?: WarmOverrides }

export type WarmOverrides = Record<Hex, { balance?: Hex; nonce?: Hex; code?: Hex; stateDiff?: Record<Hex, Hex> }>

/** The accounts and slots a call read at the fork block, with their values there. */
export type UpstreamPrestate = { accounts: [Hex, UpstreamAccount][]; slots: [address: Hex, slot: Hex, value: bigint][] }

export type UpstreamState = {
  readonly fork: ForkBlock
  account(address: Hex): Promise<UpstreamAccount>
  /** The slot's value as a number (eth_getStorageAt's 32 bytes, big-endian). */
  storage(address: Hex, slot: Hex): Promise<bigint>
  /**
   * What `call` reads at the fork block, as the upstream's trace of it tells (debug_traceCall with geth's
   * prestateTracer), kept in the cache as reads are. Empty once the upstream has refused such a trace.
   */
  prestate(call: WarmCall): Promise<UpstreamPrestate>
  /** What the cache keeps, read without waiting: undefined where it keeps nothing (or there is no cache). */
  readonly kept: { account(address: Hex): UpstreamAccount | undefined; storage(address: Hex, slot: Hex): bigint | undefined }
}

const NO_PRESTATE: UpstreamPrestate = { accounts: [], slots: [] }
/** Calls whose trace is kept: a call run again (an estimate's run after a miss, then its send) is not traced again. */
const TRACED_CALLS = 256

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

  // Until the upstream refuses a trace: a node without the debug namespace, or without the prestate tracer.
  let traces = true

  async function readPrestate(call: WarmCall): Promise<UpstreamPrestate> {
    const what = `debug_traceCall (prestateTracer) to ${call.to ?? 'a creation'} ${where}`
    // No gas and no fees: the upstream's own cap, and no balance asked for gas, as its eth_call does.
    const args = {
      from: call.from,
      to: call.to ?? undefined,
      data: call.data,
      value: call.value === undefined ? undefined : `0x${call.value.toString(16)}`,
    }
    const { overrides } = call
    const config = overrides === undefined ? { tracer: 'prestateTracer' } : { tracer: 'prestateTracer', stateOverrides: overrides }
    let answer: unknown
    try {
      // Alone: a trace goes out while the run that asked is still busy, and an upstream that chokes on it fails no read.
      // It names the block as the reads do now, and never makes them switch: an upstream that refuses a trace's
      // params (an unknown tracer, say, -32602) says nothing of whether it takes a block hash.
      answer = await transport.call('debug_traceCall', [args, at, config], what, { alone: true })
    } catch (error) {
      if (refusesTraces(error)) traces = false
      throw error
    }
    const prestate = prestateOf(answer, overrides)
    if (prestate === undefined) {
      traces = false
      throw malformed(transport, what, answer)
    }
    for (const [address, account] of prestate.accounts) if (cache?.account(address) === undefined) cache?.putAccount(address, account)
    for (const [address, slot, value] of prestate.slots) if (cache?.storage(address, slot) === undefined) cache?.putStorage(address, slot, value)
    return prestate
  }

  /** Traces by call, the oldest first: the upstream's answer for a call at the fork block is always the same. */
  const traced = new Map<string, Promise<UpstreamPrestate>>()

  function prestate(call: WarmCall): Promise<UpstreamPrestate> {
    if (!traces) return Promise.resolve(NO_PRESTATE)
    const key = JSON.stringify(call, (_, value) => (typeof value === 'bigint' ? `${value}` : value))
    let trace = traced.get(key)
    if (trace === undefined) {
      trace = readPrestate(call)
      // A failed trace may be asked again by a later run.
      trace.catch(() => traced.delete(key))
      traced.set(key, trace)
      if (traced.size > TRACED_CALLS) traced.delete(traced.keys().next().value!)
    }
    return trace
  }

  return {
    fork,
    prestate,
    kept: {
      account: (address) => cache?.account(address.toLowerCase() as Hex),
      storage: (address, slot) => cache?.storage(address.toLowerCase() as Hex, toWord(slot)),
    },
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

/**
 * Whether the upstream refused a trace as such, so that none is asked again: the method or its tracer unknown to it
 * (a JSON-RPC error that says so), or the request turned away (an HTTP 4xx other than 429, sent alone as traces are).
 * A call it could not run, and a failure that may pass (a 5xx, a timeout), leave the next trace to be asked.
 */
function refusesTraces(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return false
  if (/^answered HTTP 4(?!29)/.test(error.detail)) return true
  const answer = error.cause as { code?: unknown; message?: unknown } | undefined
  if (typeof answer?.code !== 'number' || typeof answer.message !== 'string') return false
  // -32601 method not found, -32004 method not supported (EIP-1474), -32602 invalid params (an unknown tracer).
  if (answer.code === -32601 || answer.code === -32004 || answer.code === -32602) return true
  return /not (?:found|supported|available|enabled|allowed)|unsupported|disabled|does not exist/i.test(answer.message)
}

/**
 * geth's prestateTracer answer (without diffMode): each account read, by address, with its balance, its nonce and
 * code where not zero or empty, and the slots read. An account without a balance is not taken, its slots are;
 * anything else malformed refuses the whole answer (undefined). What `overrides` set is the run's, not the
 * upstream's, and is left out.
 */
function prestateOf(answer: unknown, overrides: WarmOverrides = {}): UpstreamPrestate | undefined {
  if (!isRecord(answer)) return undefined
  const prestate: UpstreamPrestate = { accounts: [], slots: [] }
  for (const [key, entry] of Object.entries(answer)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(key) || !isRecord(entry)) return undefined
    const address = key.toLowerCase() as Hex
    const { balance, nonce = 0, code = '0x', storage = {} } = entry
    const overridden = overrides[address]
    if (!isRecord(storage)) return undefined
    for (const [slot, value] of Object.entries(storage)) {
      if (!/^0x[0-9a-fA-F]{64}$/.test(slot) || !isNumber(value)) return undefined
      const word = slot.toLowerCase() as Hex
      if (overridden?.stateDiff?.[word] === undefined) prestate.slots.push([address, word, BigInt(value)])
    }
    if (balance === undefined || overridden?.balance !== undefined || overridden?.nonce !== undefined || overridden?.code !== undefined) continue
    const nonceOk = (typeof nonce === 'number' && Number.isSafeInteger(nonce) && nonce >= 0) || isNumber(nonce)
    if (!isNumber(balance) || !nonceOk || typeof code !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(code)) return undefined
    prestate.accounts.push([address, { balance: BigInt(balance), nonce: BigInt(nonce as number | string), code: code.toLowerCase() as Hex }])
  }
  return prestate
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isNumber = (value: unknown): value is string => typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value)

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
