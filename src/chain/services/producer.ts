import { bytesToHex, createAddressFromString } from '@ethereumjs/util'

import { DEPOSIT_TX_TYPE, asTyped, decodeDeposit } from '../opstack/deposit.ts'
import { InvalidInputError } from '../errors.ts'
import { pendingBlockOf, sealedBlockOf } from '../blocks/views.ts'
import { MAX_TIMESTAMP } from '../production/clock.ts'
import { buildPayload } from '../production/payload.ts'

import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { PendingSnapshot } from '../blocks/types.ts'
import type { Automine } from '../production/automine.ts'
import type { ChainClock } from '../production/clock.ts'
import type { BuiltPayload, PayloadHost, PayloadRequest } from '../production/payload.ts'
import type { BlockPlan } from '../production/plan.ts'
import type { Producer } from '../production/producer.ts'
import type { BlockStamps } from '../production/sealBlocks.ts'
import type { Pool, PoolTransaction } from '../production/txpool.ts'
import type { MiningMode } from '../spec/config.ts'
import type { Block, PendingBlock } from '../types.ts'
import type { StatedEnv } from '../blocks/env.ts'
import type { Hex } from '../../hex.ts'
import type { TypedTransaction } from '@ethereumjs/tx'

/** The interval clock's settings: a block every `blockTime` ms, a flashblock every `flashblockInterval` ms. */
type Interval = { blockTime: number; flashblockInterval: number }

/** A flashblock a replica runs: the block's environment with its first one, and what it added. */
export type FollowedTransactions = {
  env: StatedEnv | undefined
  transactions: { raw: Uint8Array; impersonated?: Hex | undefined }[]
  last: boolean
}

export type ProducerParts = Omit<PayloadHost, 'waiting' | 'head'> & {
  /** Decodes a raw transaction as the pool's door does (Admission.decode). */
  decode: (raw: Uint8Array, impersonated: boolean) => TypedTransaction
  producer: Producer
  clock: ChainClock
  automine: Automine
  /** The interval clock the chain starts with, if any: the composition starts it once the chain is loaded. */
  interval: Interval | undefined
  flashblockInterval: number
  blocks: SealedBlocks
  pool: Pool
  pending: () => PendingSnapshot
}

/** Block production: how blocks are mined, the blocks and flashblocks made on request, the plan and the clock. */
export type ProducerService = {
  /** How blocks are produced now: `auto` while automine is on, else `interval` while its clock runs, else `manual`. */
  readonly mining: MiningMode
  /**
   * Turns automine on or off (evm_setAutomine). Off, the chain goes back to its interval clock if it has one, as
   * Hardhat does; while automine is on, the clock is stopped.
   */
  setAutomine(enabled: boolean): Promise<void>
  /**
   * Seals a block every `blockTime` ms, with flashblocks between (evm_setIntervalMining), and turns automine off;
   * 0 stops the clock. An invalid input for a block time shorter than the flashblock interval.
   */
  setIntervalMining(blockTime: number): Promise<void>
  /** Changes what the blocks to come take (evm_setBlockGasLimit, anvil_setCoinbase …); the pending block follows. */
  planBlocks(change: (plan: BlockPlan) => void): Promise<void>
  /**
   * Executes what the pool holds and publishes one flashblock; with `until` (a performance.now() time), only what
   * it executes by then, past at least one transaction, as the interval clock's flashblocks do.
   */
  preconfirm(options?: { until?: number }): Promise<PendingBlock>
  /**
   * Pre-confirms what is pending, then seals the block; with a timestamp, at that timestamp, which must be after the
   * latest block's and not past MAX_TIMESTAMP (an invalid input otherwise).
   */
  mine(options?: { timestamp?: bigint }): Promise<Block>
  /**
   * Seals `count` blocks, the first with what is pending, stamped as `stamps` says; other requests are answered
   * meanwhile. The first timestamp is checked as mine's; the caller keeps the last one within MAX_TIMESTAMP.
   */
  mineBlocks(count: bigint, stamps: BlockStamps): Promise<Block>
  /**
   * Builds the block that would follow the head with a consensus layer's attributes and the given transactions
   * (or the node's own), and keeps nothing of it (testing_buildBlockV1).
   */
  buildPayload(request: PayloadRequest): Promise<BuiltPayload>
  /**
   * A replica's step (docs/scaling-out.md): runs a flashblock its sequencer published, as it was built there
   * (Producer.follow). Its transactions come as raw EIP-2718 bytes, each with who it is from when it was sent as an
   * impersonated account. Returns the hash this chain published or sealed it with, or why it does not follow.
   */
  follow(flashblock: FollowedTransactions): Promise<{ hash: Hex } | { refused: string }>
  /** Moves the chain's clock forward (evm_increaseTime); returns how far it is ahead of wall time, s. */
  increaseTime(seconds: bigint): bigint
  /** The chain's clock, s: wall time plus what evm_increaseTime added, and never behind the latest block. */
  now(): bigint
  /** The timestamp the next block to start takes (evm_setNextBlockTimestamp); an invalid input unless after the head's. */
  setNextBlockTimestamp(timestamp: bigint): void
}

export function createProducerService(parts: ProducerParts): ProducerService {
  const { producer, clock, plan, automine, flashblockInterval, blocks, pool, pending } = parts
  let { interval } = parts

  return {
    get mining() {
      return automine.enabled ? 'auto' : interval !== undefined ? 'interval' : 'manual'
    },
    async setAutomine(enabled) {
      if (enabled === automine.enabled) return
      automine.enabled = enabled
      if (interval === undefined) return
      if (enabled) await producer.stop()
      else producer.start(interval)
    },
    async setIntervalMining(blockTime) {
      if (blockTime !== 0 && blockTime < flashblockInterval) {
        throw new InvalidInputError(`a block time of ${blockTime} ms is shorter than the flashblock interval, ${flashblockInterval} ms`)
      }
      await producer.stop()
      interval = blockTime === 0 ? undefined : { blockTime, flashblockInterval }
      if (interval === undefined) return
      automine.enabled = false
      producer.start(interval)
    },
    planBlocks: (change) =>
      producer.exclusive(async () => {
        change(plan)
        producer.replan()
      }),
    preconfirm: async (preconfirmOptions = {}) => pendingBlockOf(await producer.preconfirm(preconfirmOptions.until)),
    async mine(mineOptions = {}) {
      if (mineOptions.timestamp !== undefined) checkTimestamp(mineOptions.timestamp)
      return sealedBlockOf(await producer.seal(mineOptions))
    },
    async mineBlocks(count, stamps) {
      if (stamps.timestamp !== undefined) checkTimestamp(stamps.timestamp)
      return sealedBlockOf(await producer.sealBlocks(count, stamps))
    },
    buildPayload: (request) =>
      buildPayload(
        {
          common: parts.common,
          history: parts.history,
          blockHashes: parts.blockHashes,
          head: () => blocks.head(),
          plan,
          blockGasLimit: parts.blockGasLimit,
          waiting() {
            const { state } = pending()
            const building = producer.building()?.transactions ?? []
            const pooled = pool.content((sender) => state.account(sender)?.nonce ?? 0n).pending
            return [...building, ...pooled].map((entry) => entry.tx)
          },
        },
        request,
      ),
    async follow({ env, transactions, last }) {
      const entries: PoolTransaction[] = []
      for (const { raw, impersonated } of transactions) {
        let tx: TypedTransaction
        let sender: Hex
        try {
          // A deposit of an OP Stack sequencer's block comes as its envelope, which no pool admits (opstack/deposit.ts).
          tx = raw[0] === DEPOSIT_TX_TYPE ? asTyped(decodeDeposit(raw, parts.common)) : parts.decode(raw, impersonated !== undefined)
          if (impersonated !== undefined) tx.getSenderAddress = () => createAddressFromString(impersonated)
          sender = tx.getSenderAddress().toString() as Hex
        } catch (error) {
          return { refused: `a transaction does not decode: ${error instanceof Error ? error.message : String(error)}` }
        }
        const hash = bytesToHex(tx.hash()) as Hex
        entries.push({ tx, hash, sender, raw, nonceAfter: tx.nonce + 1n, ...(impersonated !== undefined && { impersonated: true }) })
      }
      return producer.follow({ env, entries, last })
    },
    increaseTime(seconds) {
      const now = BigInt(Math.floor(clock.now() / 1000))
      if (now + seconds > MAX_TIMESTAMP) throw new InvalidInputError(`the clock would pass ${MAX_TIMESTAMP}, the latest timestamp a block may take`)
      return clock.increase(seconds)
    },
    now() {
      const seconds = BigInt(Math.floor(clock.now() / 1000))
      const latest = blocks.head().block.header.timestamp
      return seconds > latest ? seconds : latest
    },
    setNextBlockTimestamp(timestamp) {
      checkTimestamp(timestamp)
      clock.next = timestamp
    },
  }

  /** An invalid input unless a timestamp can be the next block's: after the latest block's, and not past MAX_TIMESTAMP. */
  function checkTimestamp(timestamp: bigint) {
    const latest = blocks.head().block.header.timestamp
    if (timestamp <= latest) throw new InvalidInputError(`timestamp ${timestamp} is not after the latest block's, ${latest}`)
    if (timestamp > MAX_TIMESTAMP) throw new InvalidInputError(`timestamp ${timestamp} is past ${MAX_TIMESTAMP}, the latest a block may take`)
  }
}
