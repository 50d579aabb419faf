/**
 * What the OP Stack (Base among its chains) charges a non-deposit L2 transaction on top of its execution gas: the L1
 * data fee, priced from the transaction's FastLZ-compressed size (Fjord and later), and the operator fee (Isthmus,
 * Jovian). Both read their parameters from the L1Block predeploy (0x4200000000000000000000000000000000000015), which
 * the sequencer's L1 attributes deposit updates at the start of every block; this module decodes that deposit's
 * calldata and the storage words it leaves behind.
 */

/** The fee parameters an L2 block prices its transactions with, as the L1Block predeploy holds them. */
export type L1FeeParams = {
  l1BaseFee: bigint
  l1BlobBaseFee: bigint
  baseFeeScalar: bigint
  blobBaseFeeScalar: bigint
  operatorFeeScalar: bigint
  operatorFeeConstant: bigint
  daFootprintGasScalar: bigint
}

/** The L1 attributes a block's first transaction (a deposit) hands the L1Block predeploy. */
export type L1Attributes = L1FeeParams & {
  number: bigint
  timestamp: bigint
  /** The L1 block's hash, 32 bytes. */
  hash: Uint8Array
  sequenceNumber: bigint
  /** The batcher's address, left-padded to 32 bytes. */
  batcherHash: Uint8Array
}

export type L1Cost = {
  /** The L1 data fee in wei, charged on top of the execution fee. */
  fee: bigint
  /** The receipt's `l1GasUsed`: the estimated size priced as calldata gas. */
  gasUsed: bigint
  /** The estimated size in bytes, which Jovian counts against the block's DA footprint. */
  daSize: bigint
}

// ---- FastLZ ----------------------------------------------------------------------------------------------------

/**
 * Positions by the hash of the 3 bytes there. One table serves every call (JavaScript runs one call at a time), so a
 * call clears it instead of allocating 32 KiB.
 */
const hashTable = new Uint32Array(8192)

/** FastLZ level 1 only looks back this far for a match (its 13-bit distance field). */
const MAX_DISTANCE = 0x1fff

/**
 * The length FastLZ (level 1) would compress `data` to, without producing the output. The fee must match op-geth's
 * `FlzCompressLen` (a port of solady's `LibZip.flzCompress`) byte for byte, so this follows its scan exactly,
 * including its quirks: a zeroed table entry counts as position 0, and a match's length includes the first byte that
 * differs.
 */
export function flzCompressLen(data: Uint8Array): number {
  const table = hashTable.fill(0)
  // The last 13 bytes are never searched: FastLZ leaves room to read ahead without bounds checks.
  const ipLimit = data.length < 13 ? 0 : data.length - 13
  // A match found at ipLimit - 1 is dropped like one at ipLimit: the reference tests the limit after stepping past it.
  const lastMatch = ipLimit - 1
  let size = 0
  let anchor = 0
  let ip = 2
  while (ip < lastMatch) {
    const sequence = read24(data, ip)
    const slot = hash(sequence)
    const ref = table[slot]!
    table[slot] = ip
    if (ip - ref > MAX_DISTANCE || sequence !== read24(data, ref)) {
      ip++
      continue
    }
    size += literalsLength(ip - anchor)
    const length = matchLength(data, ref + 3, ip + 3, ipLimit + 9)
    size += matchTokenLength(length)
    ip += length
    table[hash(read24(data, ip))] = ip
    ip++
    table[hash(read24(data, ip))] = ip
    ip++
    anchor = ip
  }
  return size + literalsLength(data.length - anchor)
}

/** The 3 bytes at `i`, little-endian, as FastLZ hashes and compares them. */
function read24(data: Uint8Array, i: number): number {
  return data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16)
}

/** Fibonacci hashing into 13 bits; `Math.imul` keeps the product's low 32 bits, as the uint32 reference does. */
function hash(sequence: number): number {
  return (Math.imul(sequence, 2654435769) >>> 19) & 0x1fff
}

/**
 * How many bytes after the 3 known to match also match, counting the first one that differs, as the reference's loop
 * steps past it before it stops.
 */
function matchLength(data: Uint8Array, ref: number, ip: number, end: number): number {
  const limit = end - ip
  for (let length = 0; length < limit; length++) {
    if (data[ref + length] !== data[ip + length]) return length + 1
  }
  return limit
}

/** Literal runs are emitted in chunks of up to 32 bytes, each behind a one-byte header. */
function literalsLength(count: number): number {
  const rest = count % 32
  return 33 * Math.floor(count / 32) + (rest === 0 ? 0 : rest + 1)
}

/** A match costs 2 bytes when short, 3 when long, plus 3 per extra 262 bytes it spans. */
function matchTokenLength(length: number): number {
  const stored = length - 1
  return 3 * Math.floor(stored / 262) + (stored % 262 >= 6 ? 3 : 2)
}

// ---- The L1 data fee and the operator fee ----------------------------------------------------------------------

/** Fjord's linear fit from FastLZ size to the size a batch compresses to, scaled by 1e6 (the OP Stack spec's Fjord fee). */
const INTERCEPT = -42_585_600n
const FASTLZ_COEF = 836_500n
const MIN_SIZE_SCALED = 100n * 1_000_000n

/**
 * The L1 data fee of a transaction, by the Fjord formula (unchanged through Isthmus and Jovian). `signedTx` is the full
 * signed EIP-2718 envelope, as the batcher posts it.
 */
export function l1Cost(signedTx: Uint8Array, params: L1FeeParams): L1Cost {
  const l1FeeScaled = params.baseFeeScalar * params.l1BaseFee * 16n + params.blobBaseFeeScalar * params.l1BlobBaseFee
  const fitted = INTERCEPT + FASTLZ_COEF * BigInt(flzCompressLen(signedTx))
  const estimatedSize = fitted < MIN_SIZE_SCALED ? MIN_SIZE_SCALED : fitted
  return {
    fee: (estimatedSize * l1FeeScaled) / 1_000_000_000_000n,
    gasUsed: (estimatedSize * 16n) / 1_000_000n,
    daSize: estimatedSize / 1_000_000n,
  }
}

/**
 * Jovian's operator fee for a transaction that used `gas`. With both fields at zero it is zero, which is how op-geth
 * reads "no operator fee" from the L1Block predeploy.
 */
export function operatorFee(gas: bigint, params: L1FeeParams): bigint {
  return gas * params.operatorFeeScalar * 100n + params.operatorFeeConstant
}

// ---- The L1Block predeploy's storage ---------------------------------------------------------------------------

/**
 * The fee parameters from the L1Block predeploy's storage words: slot 1 (l1BaseFee), 3 (the L1 fee scalars beside the
 * sequence number), 7 (blobBaseFee) and 8 (the operator fee fields and Jovian's DA footprint scalar). Slot 8's layout
 * is the one op-geth, op-revm and the contract's bytecode use, which differs from the spec's prose.
 */
export function l1FeeParamsFromSlots(slot1: bigint, slot3: bigint, slot7: bigint, slot8: bigint): L1FeeParams {
  return {
    l1BaseFee: slot1,
    l1BlobBaseFee: slot7,
    baseFeeScalar: wordBytes(slot3, 16, 20),
    blobBaseFeeScalar: wordBytes(slot3, 20, 24),
    operatorFeeScalar: wordBytes(slot8, 20, 24),
    operatorFeeConstant: wordBytes(slot8, 24, 32),
    daFootprintGasScalar: wordBytes(slot8, 18, 20),
  }
}

/** Bytes [start, end) of a 32-byte storage word, byte 0 the most significant, as Solidity packs a slot. */
function wordBytes(word: bigint, start: number, end: number): bigint {
  return BigInt.asUintN((end - start) * 8, word >> BigInt((32 - end) * 8))
}

// ---- The L1 attributes deposit ---------------------------------------------------------------------------------

/** `setL1BlockValuesEcotone()`, `setL1BlockValuesIsthmus()` and `setL1BlockValuesJovian()`. */
const ECOTONE_SELECTOR = 0x440a5e20
const ISTHMUS_SELECTOR = 0x098999be
const JOVIAN_SELECTOR = 0x3db6be2b

/** Each format extends the one before it, so one layout serves all three; a shorter format stops at its length. */
const ECOTONE_LENGTH = 164
const ISTHMUS_LENGTH = 176
const JOVIAN_LENGTH = 178

type NumberField = { [K in keyof L1Attributes]: L1Attributes[K] extends bigint ? K : never }[keyof L1Attributes]
type BytesField = 'hash' | 'batcherHash'
type Field = { name: NumberField; offset: number; size: number } | { name: BytesField; offset: number; size: 32; bytes: true }

/** The packed, big-endian (not ABI-encoded) calldata after the selector, in the order the L1Block predeploy reads it. */
const FIELDS: readonly Field[] = [
  { name: 'baseFeeScalar', offset: 4, size: 4 },
  { name: 'blobBaseFeeScalar', offset: 8, size: 4 },
  { name: 'sequenceNumber', offset: 12, size: 8 },
  { name: 'timestamp', offset: 20, size: 8 },
  { name: 'number', offset: 28, size: 8 },
  { name: 'l1BaseFee', offset: 36, size: 32 },
  { name: 'l1BlobBaseFee', offset: 68, size: 32 },
  { name: 'hash', offset: 100, size: 32, bytes: true },
  { name: 'batcherHash', offset: 132, size: 32, bytes: true },
  // Isthmus
  { name: 'operatorFeeScalar', offset: 164, size: 4 },
  { name: 'operatorFeeConstant', offset: 168, size: 8 },
  // Jovian
  { name: 'daFootprintGasScalar', offset: 176, size: 2 },
]

/** The calldata of the L1 attributes deposit in Jovian's format. Throws naming the first field that does not fit. */
export function encodeL1AttributesJovian(attributes: L1Attributes): Uint8Array {
  const data = new Uint8Array(JOVIAN_LENGTH)
  writeUint(data, 0, 4, BigInt(JOVIAN_SELECTOR))
  for (const field of FIELDS) {
    if ('bytes' in field) {
      const value = attributes[field.name]
      if (value.length !== field.size) throw new Error(`L1 attributes: ${field.name} must be ${field.size} bytes, got ${value.length}`)
      data.set(value, field.offset)
    } else {
      const value = attributes[field.name]
      if (value < 0n || value >= 1n << BigInt(field.size * 8)) {
        throw new Error(`L1 attributes: ${field.name} ${value} does not fit in uint${field.size * 8}`)
      }
      writeUint(data, field.offset, field.size, value)
    }
  }
  return data
}

/**
 * The L1 attributes from a deposit's calldata in the Ecotone, Isthmus or Jovian format, all of which appear in real
 * Base blocks; the fields a format predates read as zero. Undefined for any other selector, or a length that is not
 * its format's.
 */
export function decodeL1Attributes(data: Uint8Array): L1Attributes | undefined {
  const length = formatLength(data.length < 4 ? undefined : Number(readUint(data, 0, 4)))
  if (length === undefined || data.length !== length) return undefined
  const attributes: L1Attributes = {
    l1BaseFee: 0n,
    l1BlobBaseFee: 0n,
    baseFeeScalar: 0n,
    blobBaseFeeScalar: 0n,
    operatorFeeScalar: 0n,
    operatorFeeConstant: 0n,
    daFootprintGasScalar: 0n,
    number: 0n,
    timestamp: 0n,
    hash: new Uint8Array(32),
    sequenceNumber: 0n,
    batcherHash: new Uint8Array(32),
  }
  for (const field of FIELDS) {
    if (field.offset + field.size > length) break
    if ('bytes' in field) attributes[field.name] = data.slice(field.offset, field.offset + field.size)
    else attributes[field.name] = readUint(data, field.offset, field.size)
  }
  return attributes
}

/** The calldata length of the format a selector names, or undefined when it names none we read. */
function formatLength(selector: number | undefined): number | undefined {
  if (selector === JOVIAN_SELECTOR) return JOVIAN_LENGTH
  if (selector === ISTHMUS_SELECTOR) return ISTHMUS_LENGTH
  if (selector === ECOTONE_SELECTOR) return ECOTONE_LENGTH
  return undefined
}

function writeUint(data: Uint8Array, offset: number, size: number, value: bigint): void {
  let rest = value
  for (let i = offset + size - 1; i >= offset; i--) {
    data[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
}

function readUint(data: Uint8Array, offset: number, size: number): bigint {
  let value = 0n
  for (let i = offset; i < offset + size; i++) value = (value << 8n) | BigInt(data[i]!)
  return value
}
