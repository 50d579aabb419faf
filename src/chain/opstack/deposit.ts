import { RLP } from '@ethereumjs/rlp'
import { Capability } from '@ethereumjs/tx'
import { Address, bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes, setLengthLeft } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'

import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'

/** The OP Stack's deposit transaction type (specs, deposits.md). */
export const DEPOSIT_TX_TYPE = 0x7e

/** What a deposit carries: no signature, no nonce, no fee fields. */
export type DepositFields = {
  /** Where it came from on L1: the L1 block and log, or the L1 attributes of an L2 block (sourceHashOf). */
  sourceHash: Uint8Array
  from: Address
  /** Absent: a contract creation. */
  to: Address | undefined
  /** Wei minted to `from` before it runs, kept even if it fails. */
  mint: bigint
  value: bigint
  gasLimit: bigint
  isSystemTx: boolean
  data: Uint8Array
}

/**
 * A deposit (type 0x7E): `0x7E ‖ rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data])`, its hash the
 * keccak of that. It stands beside ethereumjs's transactions with the members the chain reads of them (type, hash,
 * serialize, the sender, the gas limit, to, value and data), and no signature. Only the rollup's run executes it
 * (opstack/run.ts); ethereumjs's runTx never sees one.
 */
export class DepositTransaction implements DepositFields {
  readonly type = DEPOSIT_TX_TYPE
  readonly sourceHash: Uint8Array
  readonly from: Address
  readonly to: Address | undefined
  readonly mint: bigint
  readonly value: bigint
  readonly gasLimit: bigint
  readonly isSystemTx: boolean
  readonly data: Uint8Array
  readonly common: Common
  /**
   * The sender's nonce when the deposit ran (the receipt's depositNonce), which op-geth reports as the
   * transaction's nonce; 0 until it has run.
   */
  nonce = 0n
  readonly v = undefined
  readonly r = undefined
  readonly s = undefined
  #serialized: Uint8Array | undefined
  #hash: Uint8Array | undefined

  constructor(fields: DepositFields, common: Common) {
    if (fields.sourceHash.length !== 32) throw new Error(`a deposit's source hash has 32 bytes, not ${fields.sourceHash.length}`)
    this.sourceHash = fields.sourceHash
    this.from = fields.from
    this.to = fields.to
    this.mint = fields.mint
    this.value = fields.value
    this.gasLimit = fields.gasLimit
    this.isSystemTx = fields.isSystemTx
    this.data = fields.data
    this.common = common
  }

  raw(): Uint8Array[] {
    return [
      this.sourceHash,
      this.from.bytes,
      this.to?.bytes ?? new Uint8Array(0),
      bigIntToUnpaddedBytes(this.mint),
      bigIntToUnpaddedBytes(this.value),
      bigIntToUnpaddedBytes(this.gasLimit),
      this.isSystemTx ? Uint8Array.of(1) : new Uint8Array(0),
      this.data,
    ]
  }

  serialize(): Uint8Array {
    this.#serialized ??= concatBytes(Uint8Array.of(DEPOSIT_TX_TYPE), RLP.encode(this.raw()))
    return this.#serialized
  }

  hash(): Uint8Array {
    this.#hash ??= keccak256(this.serialize())
    return this.#hash
  }

  /** A deposit is an EIP-2718 typed transaction and has none of the other capabilities. */
  supports(capability: number): boolean {
    return capability === Capability.EIP2718TypedTransaction
  }

  getSenderAddress(): Address {
    return this.from
  }

  /** Deposits are authorized by L1 (or by the node's owner here), not by a signature. */
  isSigned(): boolean {
    return true
  }

  toJSON(): Record<string, string | boolean | undefined> {
    return {
      type: '0x7e',
      sourceHash: bytesToHex(this.sourceHash),
      from: this.from.toString(),
      to: this.to?.toString(),
      mint: `0x${this.mint.toString(16)}`,
      value: `0x${this.value.toString(16)}`,
      gas: `0x${this.gasLimit.toString(16)}`,
      isSystemTx: this.isSystemTx,
      input: bytesToHex(this.data),
    }
  }
}

/** The chain's transactions: ethereumjs's, and deposits on an OP Stack chain. */
export type ChainTransaction = TypedTransaction | DepositTransaction

export function isDeposit(tx: { type: number }): boolean {
  return tx.type === DEPOSIT_TX_TYPE
}

/** The deposit `tx` is, or undefined: ethereumjs's types know no deposit, so a type guard would narrow to never. */
export function asDeposit(tx: { type: number }): DepositTransaction | undefined {
  return tx instanceof DepositTransaction ? tx : undefined
}

/** A deposit as ethereumjs's lists hold it: a block builder's, a Block's. */
export function asTyped(tx: DepositTransaction): TypedTransaction {
  return tx as unknown as TypedTransaction
}

/** Decodes a deposit's envelope; throws, saying what is wrong, on anything else. */
export function decodeDeposit(serialized: Uint8Array, common: Common): DepositTransaction {
  if (serialized[0] !== DEPOSIT_TX_TYPE) throw new Error(`not a deposit transaction: type 0x${(serialized[0] ?? 0).toString(16)}`)
  const decoded = RLP.decode(serialized.subarray(1))
  if (!Array.isArray(decoded) || decoded.length !== 8 || decoded.some((field) => !(field instanceof Uint8Array))) {
    throw new Error('a deposit transaction is the RLP list [sourceHash, from, to, mint, value, gas, isSystemTx, data]')
  }
  const [sourceHash, from, to, mint, value, gas, isSystemTx, data] = decoded as Uint8Array[]
  if (from!.length !== 20) throw new Error(`a deposit's from has 20 bytes, not ${from!.length}`)
  if (to!.length !== 0 && to!.length !== 20) throw new Error(`a deposit's to has 20 bytes or none, not ${to!.length}`)
  if (isSystemTx!.length > 1 || (isSystemTx!.length === 1 && isSystemTx![0] !== 1)) throw new Error("a deposit's isSystemTx is a boolean")
  for (const [name, field] of [
    ['mint', mint],
    ['value', value],
    ['gas', gas],
  ] as const) {
    if (field!.length > 32 || field![0] === 0) throw new Error(`a deposit's ${name} is not a canonical integer`)
  }
  if (gas!.length > 8) throw new Error("a deposit's gas does not fit 64 bits")
  return new DepositTransaction(
    {
      sourceHash: sourceHash!,
      from: new Address(from!),
      to: to!.length === 0 ? undefined : new Address(to!),
      mint: bytesToBigInt(mint!),
      value: bytesToBigInt(value!),
      gasLimit: bytesToBigInt(gas!),
      isSystemTx: isSystemTx!.length === 1,
      data: data!,
    },
    common,
  )
}

/** Source-hash domains (specs, deposits.md): a user deposit from an L1 log, and an L2 block's L1 attributes. */
export const SourceDomain = { userDeposit: 0n, l1Info: 1n } as const

/** keccak256(bytes32(domain) ‖ keccak256(l1BlockHash ‖ bytes32(index))), index a log index or a sequence number. */
export function sourceHashOf(domain: bigint, l1BlockHash: Uint8Array, index: bigint): Uint8Array {
  const inner = keccak256(concatBytes(l1BlockHash, setLengthLeft(bigIntToUnpaddedBytes(index), 32)))
  return keccak256(concatBytes(setLengthLeft(bigIntToUnpaddedBytes(domain), 32), inner))
}
