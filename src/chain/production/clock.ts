/**
 * The chain's clock: wall time, moved forward by evm_increaseTime, and a timestamp set for the next block alone
 * (evm_setNextBlockTimestamp). Once a block takes a timestamp it was given, the clock goes on from that timestamp, as
 * anvil's and Hardhat's do, so the blocks after it do not fall back to wall time plus one second each.
 */
/**
 * The latest timestamp a block may take, s: the clock counts milliseconds in a double, exact up to 2^53 (the year
 * 287,396). Past it, ethereumjs's fork lookup compares timestamps as doubles too, and fails for good.
 */
export const MAX_TIMESTAMP = BigInt(Math.floor(Number.MAX_SAFE_INTEGER / 1000))

export type ChainClock = {
  /** Milliseconds, as Date.now() counts them. */
  now(): number
  /** Moves the clock forward by `seconds`; returns how far it is ahead of wall time now, s. */
  increase(seconds: bigint): bigint
  /** The timestamp the next block to start must take, until one takes it. */
  next: bigint | undefined
  /** A block took `timestamp`, which it was given: the next-block timestamp is spent, and the clock goes on from it. */
  used(timestamp: bigint): void
  /** The clock's settings, for a snapshot to put back. */
  save(): ClockSettings
  restore(settings: ClockSettings): void
}

export type ClockSettings = { offsetMs: number; next: bigint | undefined }

export function createClock(): ChainClock {
  let offsetMs = 0
  const clock: ChainClock = {
    now: () => Date.now() + offsetMs,
    increase(seconds) {
      offsetMs += Number(seconds) * 1000
      return BigInt(Math.floor(offsetMs / 1000))
    },
    next: undefined,
    used(timestamp) {
      clock.next = undefined
      offsetMs = Number(timestamp) * 1000 - Date.now()
    },
    save: () => ({ offsetMs, next: clock.next }),
    restore(settings) {
      offsetMs = settings.offsetMs
      clock.next = settings.next
    },
  }
  return clock
}
