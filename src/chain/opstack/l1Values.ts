import { bigIntToBytes, bytesToBigInt, bytesToHex, setLengthLeft, unpadBytes } from '@ethereumjs/util'

import { createStateDiff } from '../state/types.ts'
import { L1_BLOCK } from './addresses.ts'
import { l1FeeParamsFromSlots } from './l1Cost.ts'

import type { StateEdit } from '../state/edits.ts'
import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { L1FeeParams } from './l1Cost.ts'

/** The L1 values the owner may set (flashchain_setL1Values); each left out keeps what L1Block holds. */
export type L1Values = Partial<L1FeeParams>

const slotHex = (slot: number) => bytesToHex(setLengthLeft(bigIntToBytes(BigInt(slot)), 32)) as Hex

/** Each settable value: its L1Block slot, where its bits start (from the word's low end), and its width in bits. */
const FIELDS: Record<keyof L1FeeParams, { slot: number; shift: bigint; bits: bigint }> = {
  l1BaseFee: { slot: 1, shift: 0n, bits: 256n },
  baseFeeScalar: { slot: 3, shift: 96n, bits: 32n },
  blobBaseFeeScalar: { slot: 3, shift: 64n, bits: 32n },
  l1BlobBaseFee: { slot: 7, shift: 0n, bits: 256n },
  operatorFeeConstant: { slot: 8, shift: 0n, bits: 64n },
  operatorFeeScalar: { slot: 8, shift: 64n, bits: 32n },
  daFootprintGasScalar: { slot: 8, shift: 96n, bits: 16n },
}

/** The L1 values in L1Block's storage in `state`, which the fees of a transaction run on it are computed from. */
export function l1FeeParamsOf(state: StateReader): L1FeeParams {
  const word = (slot: number) => bytesToBigInt(state.storage(L1_BLOCK, slotHex(slot)))
  return l1FeeParamsFromSlots(word(1), word(3), word(7), word(8))
}

/**
 * Writes L1 values into L1Block's storage (the layout of its Jovian version, which the L1 attributes deposit fills),
 * as an edit of the state: the transactions that run after it pay fees from them, and each later block's L1
 * attributes deposit carries them on. A value too wide for its field throws, naming it.
 */
export function editL1Values(values: L1Values): StateEdit {
  for (const [name, value] of Object.entries(values) as [keyof L1FeeParams, bigint | undefined][]) {
    const field = FIELDS[name]
    if (value !== undefined && (value < 0n || value >= 1n << field.bits)) throw new RangeError(`${name} ${value} does not fit ${field.bits} bits`)
  }
  return (state) => {
    const words = new Map<number, bigint>()
    for (const [name, value] of Object.entries(values) as [keyof L1FeeParams, bigint | undefined][]) {
      if (value === undefined) continue
      const { slot, shift, bits } = FIELDS[name]
      const word = words.get(slot) ?? bytesToBigInt(state.storage(L1_BLOCK, slotHex(slot)))
      const mask = ((1n << bits) - 1n) << shift
      words.set(slot, (word & ~mask) | (value << shift))
    }
    const diff = createStateDiff()
    const slots = new Map<Hex, Uint8Array>()
    for (const [slot, word] of words) slots.set(slotHex(slot), unpadBytes(bigIntToBytes(word)))
    if (slots.size > 0) diff.storage.set(L1_BLOCK, { cleared: false, slots })
    return diff
  }
}
