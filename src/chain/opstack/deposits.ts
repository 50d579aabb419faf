import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, createAddressFromString, setLengthLeft } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { DepositTransaction, SourceDomain, asDeposit, sourceHashOf } from './deposit.ts'
import { encodeL1AttributesJovian, l1FeeParamsFromSlots } from './l1Cost.ts'
import { L1_ATTRIBUTES_DEPOSITOR, L1_BLOCK } from './addresses.ts'

import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import type { ChainStore } from '../storage/chainStore.ts'
import type { Hex } from '../../hex.ts'
import type { L1Attributes } from './l1Cost.ts'

/** Seconds between L1 blocks: the L1 origin a block names moves on with the L2 clock, one L1 block per 12 s. */
export const L1_BLOCK_TIME = 12n

/** The L1 attributes deposit's gas (specs, deposits.md: 1,000,000 from Regolith). */
export const L1_INFO_GAS = 1_000_000n

const l1Block = createAddressFromString(L1_BLOCK)
const depositor = createAddressFromString(L1_ATTRIBUTES_DEPOSITOR)
const slotKey = (slot: number) => setLengthLeft(bigIntToBytes(BigInt(slot)), 32)

/**
 * What opens each block of an OP Stack chain (specs, deposits.md "L1 Attributes Deposited Transaction"): the L1
 * attributes deposit at index 0, then the user deposits waiting. A dev chain has no L1: the L1 origin is what
 * L1Block holds after the block before, moved on by one L1 block per 12 s of L2 time (a new origin's hash is
 * derived from the one before, its sequence number starts at 0; within one origin the sequence number counts the
 * L2 blocks). The fee values (L1 base fee, blob base fee, scalars, operator fee) carry over from block to block,
 * so that what the owner sets (flashchain_setL1Values, an edit of L1Block's storage) holds until it is set again.
 */
export type OpStackBlocks = {
  /**
   * The deposits that open the block at `timestamp`, run on the state before it (`vm`'s): the L1 attributes deposit,
   * then the user deposits waiting, in order, as many as the block's `gasLimit` holds beside it (each counted at its
   * whole gas limit, as the block's gas pool takes it first); the rest wait for the next block.
   */
  openingDeposits(vm: VM, timestamp: bigint, gasLimit: bigint): Promise<DepositTransaction[]>
  /** Queues a user deposit for the next block's start; its hash is returned once the queue is durable. */
  queue(deposit: DepositTransaction): Hex
  /**
   * Puts user deposits back at the head of the line, in their order: a restart's from the store, or those of a block
   * whose start failed (a fork's upstream that did not answer).
   */
  requeue(deposits: DepositTransaction[]): void
  /**
   * A block built again (after a revert) from what it held: its user deposits wait for its start again, where its L1
   * attributes deposit (its first transaction) is made anew; returns the rest, which runs after them as before.
   */
  resume<T extends { tx: { type: number } }>(entries: readonly T[]): T[]
  /** Whether a deposit with this hash waits, or was taken by the block being built. */
  holds(hash: Hex): boolean
  /**
   * The deposits waiting go back with a snapshot's revert, and none wait after a reset: a participant of test
   * control (services/control.ts).
   */
  readonly participant: { capture(): DepositTransaction[]; restore(saved: DepositTransaction[]): void; reset(): void }
}

export function createOpStackBlocks(options: { common: Common; store: ChainStore; log: (line: string) => void }): OpStackBlocks {
  let waiting: DepositTransaction[] = []
  /** The user deposits the block being built took, which a second send of must still find. */
  let taken: DepositTransaction[] = []
  // A deposit's hash is returned once it is in the store's pool table, as a pool transaction's is.
  const persist = (deposit: DepositTransaction) =>
    options.store.addPoolTransaction(bytesToHex(deposit.hash()) as Hex, deposit.serialize(), undefined, undefined)
  return {
    async openingDeposits(vm, timestamp, gasLimit) {
      const attributes = await nextAttributes(vm, timestamp)
      const l1Info = new DepositTransaction(
        {
          sourceHash: sourceHashOf(SourceDomain.l1Info, attributes.hash, attributes.sequenceNumber),
          from: depositor,
          to: l1Block,
          mint: 0n,
          value: 0n,
          gasLimit: L1_INFO_GAS,
          isSystemTx: false,
          data: encodeL1AttributesJovian(attributes),
        },
        options.common,
      )
      let room = gasLimit - L1_INFO_GAS
      // One that would not fit even an empty block of this gas limit (lowered since it was sent) would hold every
      // deposit behind it for good: it is dropped, and said so, as the pool drops what can never run.
      const fits = (deposit: DepositTransaction) => deposit.gasLimit <= room
      for (const deposit of waiting.filter((deposit) => !fits(deposit))) {
        const hash = bytesToHex(deposit.hash()) as Hex
        options.store.removePoolTransactions([hash])
        options.log(
          `dropped deposit ${hash}: its gas ${deposit.gasLimit} exceeds what a block of gas limit ${gasLimit} holds beside its L1 attributes deposit`,
        )
      }
      waiting = waiting.filter(fits)
      let count = 0
      while (count < waiting.length && waiting[count]!.gasLimit <= room) room -= waiting[count++]!.gasLimit
      taken = waiting.slice(0, count)
      waiting = waiting.slice(count)
      return [l1Info, ...taken]
    },
    queue(deposit) {
      persist(deposit)
      waiting.push(deposit)
      return bytesToHex(deposit.hash()) as Hex
    },
    requeue(deposits) {
      waiting = [...deposits, ...waiting]
    },
    resume(entries) {
      const users = entries.slice(1).flatMap((entry) => asDeposit(entry.tx) ?? [])
      waiting = [...users, ...waiting]
      return entries.filter((entry) => asDeposit(entry.tx) === undefined)
    },
    participant: {
      capture: () => waiting.slice(),
      restore(saved) {
        waiting = saved.slice()
        taken = []
        // The revert put the pool table back as it was; these wait in it too.
        for (const deposit of waiting) persist(deposit)
      },
      reset() {
        waiting = []
        taken = []
      },
    },
    holds: (hash) => [...taken, ...waiting].some((deposit) => bytesToHex(deposit.hash()) === hash),
  }
}

/** The L1 attributes of the block at `timestamp`, from what L1Block holds before it. */
async function nextAttributes(vm: VM, timestamp: bigint): Promise<L1Attributes> {
  const read = async (slot: number) => bytesToBigInt(await vm.stateManager.getStorage(l1Block, slotKey(slot)))
  const [slot0, slot1, slot2, slot3, slot4, slot7, slot8] = await Promise.all([0, 1, 2, 3, 4, 7, 8].map(read))
  const fees = l1FeeParamsFromSlots(slot1!, slot3!, slot7!, slot8!)
  let number = slot0! & 0xffff_ffff_ffff_ffffn
  let l1Timestamp = slot0! >> 64n
  let hash = setLengthLeft(bigIntToBytes(slot2!), 32)
  let sequenceNumber = (slot3! & 0xffff_ffff_ffff_ffffn) + 1n
  if (timestamp >= l1Timestamp + L1_BLOCK_TIME) {
    const behind = (timestamp - l1Timestamp) / L1_BLOCK_TIME
    number += behind
    l1Timestamp += behind * L1_BLOCK_TIME
    hash = keccak256(concatBytes(hash, setLengthLeft(bigIntToBytes(number), 32)))
    sequenceNumber = 0n
  }
  return { ...fees, number, timestamp: l1Timestamp, hash, sequenceNumber, batcherHash: setLengthLeft(bigIntToBytes(slot4!), 32) }
}
