/**
 * geth-style genesis.json → an ethereumjs Common, the genesis header fields and the parsed alloc.
 *
 * The header follows geth's `Genesis.toBlockWithRoot`: gasLimit defaults to 4712388, difficulty to 0x20000 (ethash,
 * zero mixHash) or 0; London at genesis adds baseFeePerGas (1 gwei unless given), Shanghai withdrawalsRoot, Cancun
 * blobGasUsed/excessBlobGas (0 unless given) and a zero parentBeaconBlockRoot, Prague requestsHash = sha256("").
 * stateRoot is left out: createGenesis (state/genesis.ts) derives it from the alloc.
 *
 * Quirks of `createCommonFromGethGenesis` (@ethereumjs/common 10.1) handled here:
 * - A `blobSchedule` entry replaces that fork's inline params with `targetBlobGasPerBlock` / `maxBlobGasPerBlock` /
 *   `blobGasPriceUpdateFraction`, dropping the `target` / `max` that `getBlobGasSchedule()` reads from bpo1 on
 *   ("Missing parameter value for target"). The schedule is therefore also given as hardfork-scoped params.
 * - It only knows the forks named in the config, so a skipped fork silently loses its EIPs (Osaka alone would run
 *   without EIP-1559). Fork order is checked as geth's CheckConfigForkOrder does, and skipping is an error.
 * - It requires `difficulty`, `gasLimit` and `nonce`; geth does not. Defaults are filled in first.
 * - The chain id must be a number or a string; one above 2^53 only survives JSON.parse through
 *   {@link parseGenesisJsonText}, which keeps such integers as bigints.
 */
import { createCommonFromGethGenesis, type CustomCrypto } from '@ethereumjs/common'
import { KECCAK256_RLP, SHA256_NULL, bytesToHex, hexToBytes } from '@ethereumjs/util'

import type { HeaderData } from '@ethereumjs/block'
import type { Common, GethGenesis } from '@ethereumjs/common'

export type GenesisAccount = {
  balance: bigint
  nonce: bigint
  code: Uint8Array
  /** 32-byte lowercase slot → value bytes without leading zeros; zero values are left out. */
  storage: Map<`0x${string}`, Uint8Array>
}

export type GenesisSpec = {
  /** Set to the hardfork active at genesis. */
  common: Common
  /** Every genesis header field except stateRoot. */
  header: HeaderData
  /** Keyed by lowercase 0x address. */
  alloc: Map<`0x${string}`, GenesisAccount>
  /**
   * The contract whose logs are EIP-6110 deposits: config.depositContractAddress, or mainnet's when the genesis
   * leaves it out, which is the one @ethereumjs/vm then watches.
   */
  depositContractAddress: `0x${string}`
}

/** Mainnet's deposit contract. */
export const MAINNET_DEPOSIT_CONTRACT = '0x00000000219ab540356cbb839cbe05303d7705fa'

/** geth's params.GenesisGasLimit, used when gasLimit is absent or 0. */
export const GENESIS_GAS_LIMIT = 4_712_388n
/** geth's params.GenesisDifficulty. */
export const GENESIS_DIFFICULTY = 0x20000n
/** geth's params.InitialBaseFee (EIP-1559), the genesis base fee when London is active at 0 and none is given. */
export const INITIAL_BASE_FEE = 1_000_000_000n
const BLOB_GAS_PER_BLOB = 131_072
/** geth's defaults (EIP-4844, EIP-7691); bpo forks keep ethereumjs' own values unless the genesis gives them. */
const DEFAULT_BLOB_SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3_338_477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
}
const CHAIN_NAME = 'flashchain'

/** Block-numbered forks in geth's order; `optional` ones may be left out without breaking the order. */
const BLOCK_FORKS: ReadonlyArray<{ field: string; optional?: boolean }> = [
  { field: 'homesteadBlock' },
  { field: 'daoForkBlock', optional: true },
  { field: 'eip150Block' },
  { field: 'eip155Block' },
  { field: 'eip158Block' },
  { field: 'byzantiumBlock' },
  { field: 'constantinopleBlock' },
  { field: 'petersburgBlock' },
  { field: 'istanbulBlock' },
  { field: 'muirGlacierBlock', optional: true },
  { field: 'berlinBlock' },
  { field: 'londonBlock' },
  { field: 'arrowGlacierBlock', optional: true },
  { field: 'grayGlacierBlock', optional: true },
  { field: 'mergeNetsplitBlock', optional: true },
]

/** Timestamp forks in order. Unlike geth, cancun..osaka may not be skipped: ethereumjs would drop their EIPs. */
const TIME_FORKS: ReadonlyArray<{ field: string; optional?: boolean }> = [
  { field: 'shanghaiTime' },
  { field: 'cancunTime' },
  { field: 'pragueTime' },
  { field: 'osakaTime' },
  { field: 'bpo1Time', optional: true },
  { field: 'bpo2Time', optional: true },
  { field: 'bpo3Time', optional: true },
  { field: 'bpo4Time', optional: true },
  { field: 'bpo5Time', optional: true },
]

function fail(message: string): never {
  throw new Error(`invalid genesis: ${message}`)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)
  if (value === undefined) return 'undefined'
  return JSON.stringify(value) ?? String(value)
}

/** A non-negative integer given as a JSON number, a bigint, or a hex ("0x..") or decimal string. */
function parseQuantity(value: unknown, field: string): bigint {
  if (typeof value === 'bigint') {
    if (value < 0n) fail(`${field} must not be negative, got ${describe(value)}`)
    return value
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) fail(`${field} must be a non-negative integer, got ${describe(value)}`)
    if (!Number.isSafeInteger(value)) {
      fail(`${field} (${value}) is above 2^53 and lost precision in JSON.parse; write it as a string or parse the file with parseGenesisJsonText`)
    }
    return BigInt(value)
  }
  if (typeof value === 'string') {
    if (/^0x[0-9a-f]+$/i.test(value)) return BigInt(value)
    if (/^[0-9]+$/.test(value)) return BigInt(value)
  }
  fail(`${field} must be a hex or decimal number, got ${describe(value)}`)
}

/** An optional quantity: absent or null gives undefined. */
function optionalQuantity(value: unknown, field: string): bigint | undefined {
  return value === undefined || value === null ? undefined : parseQuantity(value, field)
}

/** Hex bytes, 0x optional, even length; `length` demands an exact byte length. */
function toBytes(value: unknown, field: string, length?: number): Uint8Array {
  if (typeof value !== 'string' || !/^(0x)?([0-9a-f]{2})*$/i.test(value)) {
    fail(`${field} must be hex bytes, got ${describe(value)}`)
  }
  const bytes = hexToBytes(`0x${value.replace(/^0x/i, '')}`)
  if (length !== undefined && bytes.length !== length) {
    fail(`${field} must be ${length} bytes, got ${bytes.length}`)
  }
  return bytes
}

/** A storage key or value: up to 32 bytes of hex (0x optional), left-padded as geth's storageJSON does. */
function toWord(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string' || !/^(0x)?[0-9a-f]{0,64}$/i.test(value)) {
    fail(`${field} must be at most 32 bytes of hex, got ${describe(value)}`)
  }
  return hexToBytes(`0x${value.replace(/^0x/i, '').padStart(64, '0')}`)
}

function trimLeadingZeros(bytes: Uint8Array): Uint8Array {
  let start = 0
  while (start < bytes.length && bytes[start] === 0) start++
  return bytes.slice(start)
}

/** A fork activation (block number or timestamp) as a JS number, as ethereumjs wants it. */
function forkValue(config: Record<string, unknown>, field: string): number | undefined {
  const value = optionalQuantity(config[field], `config.${field}`)
  if (value === undefined) return undefined
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) fail(`config.${field} is too large: ${value}`)
  return Number(value)
}

function checkForkOrder(forks: ReadonlyArray<{ field: string; optional?: boolean }>, values: Map<string, number>) {
  let missing: string | undefined
  let last: { field: string; value: number } | undefined
  for (const fork of forks) {
    const value = values.get(fork.field)
    if (value === undefined) {
      if (fork.optional !== true) missing ??= fork.field
      continue
    }
    if (missing !== undefined) fail(`config.${fork.field} is set but config.${missing} is not (forks cannot be skipped)`)
    if (last !== undefined && last.value > value) {
      fail(`config.${fork.field} (${value}) is before config.${last.field} (${last.value})`)
    }
    last = { field: fork.field, value }
  }
}

function parseChainId(value: unknown): bigint {
  if (value === undefined || value === null) fail('config.chainId is required')
  const chainId = parseQuantity(value, 'config.chainId')
  if (chainId === 0n) fail('config.chainId must not be 0')
  return chainId
}

function parseBlobSchedule(value: unknown) {
  if (value === undefined || value === null) return undefined
  if (!isRecord(value)) fail(`config.blobSchedule must be an object, got ${describe(value)}`)
  const schedule: Record<string, { target: number; max: number; baseFeeUpdateFraction: number }> = {}
  for (const [fork, entry] of Object.entries(value)) {
    const field = `config.blobSchedule.${fork}`
    if (!isRecord(entry)) fail(`${field} must be an object, got ${describe(entry)}`)
    const number = (key: string) => {
      const n = parseQuantity(entry[key], `${field}.${key}`)
      if (n > BigInt(Number.MAX_SAFE_INTEGER)) fail(`${field}.${key} is too large: ${n}`)
      return Number(n)
    }
    schedule[fork] = { target: number('target'), max: number('max'), baseFeeUpdateFraction: number('baseFeeUpdateFraction') }
  }
  return schedule
}

function parseAlloc(value: unknown): Map<`0x${string}`, GenesisAccount> {
  const alloc = new Map<`0x${string}`, GenesisAccount>()
  if (value === undefined || value === null) return alloc
  if (!isRecord(value)) fail(`alloc must be an object, got ${describe(value)}`)
  for (const [key, entry] of Object.entries(value)) {
    if (!/^(0x)?[0-9a-f]{40}$/i.test(key)) fail(`alloc key ${describe(key)} is not a 20-byte hex address`)
    const address = `0x${key.replace(/^0x/i, '').toLowerCase()}` as const
    const field = `alloc[${address}]`
    if (alloc.has(address)) fail(`${field} is given twice`)
    if (!isRecord(entry)) fail(`${field} must be an object, got ${describe(entry)}`)
    if (entry.balance === undefined || entry.balance === null) fail(`${field}.balance is required`)
    const balance = parseQuantity(entry.balance, `${field}.balance`)
    if (balance >= 2n ** 256n) fail(`${field}.balance does not fit in 256 bits`)
    const nonce = optionalQuantity(entry.nonce, `${field}.nonce`) ?? 0n
    if (nonce >= 2n ** 64n) fail(`${field}.nonce does not fit in 64 bits`)
    const code = entry.code === undefined || entry.code === null ? new Uint8Array() : toBytes(entry.code, `${field}.code`)
    const storage = new Map<`0x${string}`, Uint8Array>()
    if (entry.storage !== undefined && entry.storage !== null) {
      if (!isRecord(entry.storage)) fail(`${field}.storage must be an object, got ${describe(entry.storage)}`)
      const seen = new Set<string>()
      for (const [slotKey, slotValue] of Object.entries(entry.storage)) {
        const slot = bytesToHex(toWord(slotKey, `${field}.storage key ${describe(slotKey)}`)) as `0x${string}`
        if (seen.has(slot)) fail(`${field}.storage[${slot}] is given twice`)
        seen.add(slot)
        const word = trimLeadingZeros(toWord(slotValue, `${field}.storage[${slot}]`))
        if (word.length > 0) storage.set(slot, word)
      }
    }
    alloc.set(address, { balance, nonce, code, storage })
  }
  return alloc
}

/**
 * JSON.parse that keeps integers above 2^53 exact, as bigints (Node 24's reviver source text). Use it to read a
 * genesis.json whose chainId, balances or fork values do not fit a double.
 */
export function parseGenesisJsonText(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown => {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && /^\d+$/.test(context.source)) {
      return BigInt(context.source)
    }
    return value
  }
  return JSON.parse(text, reviver)
}

/** Parses a geth-style genesis (the parsed JSON object). Throws an Error naming the field on invalid input. */
export function parseGethGenesis(json: unknown, options: { customCrypto?: CustomCrypto } = {}): GenesisSpec {
  if (!isRecord(json)) fail(`expected a JSON object, got ${describe(json)}`)
  if (!isRecord(json.config)) fail(json.config === undefined ? 'config is required' : `config must be an object, got ${describe(json.config)}`)
  const rawConfig = json.config
  const chainId = parseChainId(rawConfig.chainId)

  const number = optionalQuantity(json.number, 'number') ?? 0n
  if (number !== 0n) fail(`number must be 0, got ${number}`)
  const timestamp = optionalQuantity(json.timestamp, 'timestamp') ?? 0n
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) fail(`timestamp is too large: ${timestamp}`)
  const rawGasLimit = optionalQuantity(json.gasLimit, 'gasLimit') ?? 0n
  const gasLimit = rawGasLimit === 0n ? GENESIS_GAS_LIMIT : rawGasLimit
  const gasUsed = optionalQuantity(json.gasUsed, 'gasUsed') ?? 0n
  const nonceValue = optionalQuantity(json.nonce, 'nonce') ?? 0n
  if (nonceValue >= 2n ** 64n) fail('nonce does not fit in 8 bytes')
  const nonce = hexToBytes(`0x${nonceValue.toString(16).padStart(16, '0')}`)
  const extraData = json.extraData === undefined || json.extraData === null ? new Uint8Array() : toBytes(json.extraData, 'extraData')
  const mixHash = json.mixHash === undefined || json.mixHash === null ? new Uint8Array(32) : toBytes(json.mixHash, 'mixHash', 32)
  const coinbase = json.coinbase === undefined || json.coinbase === null ? new Uint8Array(20) : toBytes(json.coinbase, 'coinbase', 20)
  const parentHash = json.parentHash === undefined || json.parentHash === null ? new Uint8Array(32) : toBytes(json.parentHash, 'parentHash', 32)
  let difficulty = optionalQuantity(json.difficulty, 'difficulty')
  if (difficulty === undefined) {
    // geth: no ethash section means a proof-of-stake (or clique) genesis with difficulty 0.
    difficulty = rawConfig.ethash === undefined ? 0n : mixHash.every((b) => b === 0) ? GENESIS_DIFFICULTY : 0n
  }
  const baseFee = optionalQuantity(json.baseFeePerGas, 'baseFeePerGas')
  const excessBlobGas = optionalQuantity(json.excessBlobGas, 'excessBlobGas')
  const blobGasUsed = optionalQuantity(json.blobGasUsed, 'blobGasUsed')

  // Forks.
  const forkValues = new Map<string, number>()
  for (const { field } of [...BLOCK_FORKS, ...TIME_FORKS]) {
    const value = forkValue(rawConfig, field)
    if (value !== undefined) forkValues.set(field, value)
  }
  const anyTimeFork = TIME_FORKS.some(({ field }) => forkValues.has(field))
  checkForkOrder(TIME_FORKS, forkValues)
  if (anyTimeFork && !forkValues.has('londonBlock')) fail('config.londonBlock is required when timestamp forks are set')
  checkForkOrder(BLOCK_FORKS, forkValues)
  // Only "is it 0" matters here; mainnet-sized values above 2^53 are fine even after a lossy JSON.parse.
  const rawTtd = rawConfig.terminalTotalDifficulty
  const ttd =
    typeof rawTtd === 'number' && rawTtd > Number.MAX_SAFE_INTEGER ? BigInt(rawTtd) : optionalQuantity(rawTtd, 'config.terminalTotalDifficulty')
  if (!forkValues.has('mergeNetsplitBlock') && forkValues.get('londonBlock') === 0) {
    // Merged from genesis: ethereumjs assumes this for time forks, geth for a terminal total difficulty of 0.
    if (anyTimeFork || ttd === 0n || rawConfig.terminalTotalDifficultyPassed === true) forkValues.set('mergeNetsplitBlock', 0)
  }
  if (anyTimeFork && !forkValues.has('mergeNetsplitBlock')) {
    fail('config.mergeNetsplitBlock is required when timestamp forks are set and London is not at block 0')
  }
  if (forkValues.get('eip155Block') !== forkValues.get('eip158Block')) {
    fail('config.eip155Block and config.eip158Block must be equal (both are Spurious Dragon)')
  }
  const blobSchedule = parseBlobSchedule(rawConfig.blobSchedule)

  const config: Record<string, unknown> = {
    // ethereumjs keeps the chain id as given and returns BigInt(it): a string keeps large ids exact.
    chainId: chainId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(chainId) : chainId.toString(),
    ...Object.fromEntries(forkValues),
  }
  if (typeof rawConfig.daoForkSupport === 'boolean') config.daoForkSupport = rawConfig.daoForkSupport
  if (rawConfig.depositContractAddress !== undefined) {
    config.depositContractAddress = bytesToHex(toBytes(rawConfig.depositContractAddress, 'config.depositContractAddress', 20))
  }
  if (isRecord(rawConfig.clique)) config.clique = rawConfig.clique
  else if (rawConfig.ethash !== undefined) config.ethash = {}
  if (blobSchedule !== undefined) config.blobSchedule = blobSchedule

  const gethGenesis = {
    config,
    name: CHAIN_NAME,
    nonce: bytesToHex(nonce),
    timestamp: `0x${timestamp.toString(16)}`,
    extraData: bytesToHex(extraData),
    gasLimit: `0x${gasLimit.toString(16)}`,
    difficulty: `0x${difficulty.toString(16)}`,
    mixHash: bytesToHex(mixHash),
    coinbase: bytesToHex(coinbase),
    alloc: {},
    ...(baseFee === undefined ? {} : { baseFeePerGas: `0x${baseFee.toString(16)}` }),
    ...(excessBlobGas === undefined ? {} : { excessBlobGas: `0x${excessBlobGas.toString(16)}` }),
  } as unknown as GethGenesis

  // The blob schedule again as hardfork-scoped params, so that `target` and `max` survive (see the header comment),
  // with the mainnet values for forks the schedule leaves out, so that the Common answers getBlobGasSchedule() alone.
  const params: Record<string, Record<string, number>> = {}
  for (const [fork, { target, max, baseFeeUpdateFraction }] of Object.entries({ ...DEFAULT_BLOB_SCHEDULE, ...blobSchedule })) {
    params[fork] = {
      target,
      max,
      blobGasPerBlob: BLOB_GAS_PER_BLOB,
      targetBlobGasPerBlock: target * BLOB_GAS_PER_BLOB,
      maxBlobGasPerBlock: max * BLOB_GAS_PER_BLOB,
      blobGasPriceUpdateFraction: baseFeeUpdateFraction,
    }
  }

  let common: Common
  try {
    common = createCommonFromGethGenesis(gethGenesis, { chain: CHAIN_NAME, params, customCrypto: options.customCrypto })
    common.setHardforkBy({ blockNumber: 0n, timestamp })
  } catch (error) {
    fail((error as Error).message.replace(/^Error parsing parameters file: /, ''))
  }

  const header: HeaderData = {
    parentHash,
    coinbase,
    difficulty,
    number: 0n,
    gasLimit,
    gasUsed,
    timestamp,
    extraData,
    mixHash,
    nonce,
  }
  if (common.isActivatedEIP(1559)) header.baseFeePerGas = baseFee ?? INITIAL_BASE_FEE
  else if (baseFee !== undefined) fail('baseFeePerGas is set but London is not active at genesis')
  if (common.isActivatedEIP(4895)) header.withdrawalsRoot = KECCAK256_RLP
  if (common.isActivatedEIP(4844)) {
    header.blobGasUsed = blobGasUsed ?? 0n
    header.excessBlobGas = excessBlobGas ?? 0n
    header.parentBeaconBlockRoot = new Uint8Array(32)
  } else if (excessBlobGas !== undefined || blobGasUsed !== undefined) {
    fail(`${excessBlobGas !== undefined ? 'excessBlobGas' : 'blobGasUsed'} is set but Cancun is not active at genesis`)
  }
  if (common.isActivatedEIP(7685)) header.requestsHash = SHA256_NULL

  const depositContractAddress = (config.depositContractAddress as `0x${string}` | undefined)?.toLowerCase() as `0x${string}` | undefined
  return { common, header, alloc: parseAlloc(json.alloc), depositContractAddress: depositContractAddress ?? MAINNET_DEPOSIT_CONTRACT }
}
