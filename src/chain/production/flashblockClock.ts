/**
 * Interval mining's clock: a flashblock every `flashblockInterval` ms, and every `blockTime` ms a seal, each run on
 * the writer's queue.
 */
export type FlashblockClock = {
  start(options: { blockTime: number; flashblockInterval: number }): void
  /** Stops the clock; a turn already on the writer's queue still runs. */
  stop(): void
}

/** What the clock's turns do, each on the writer's queue. */
export type ClockTurns = {
  serially<T>(work: () => Promise<T>): Promise<T>
  /** Goes on with the block being built, or starts one. */
  begin(): Promise<unknown>
  /**
   * Executes what the pool holds into the block being built (started if none is), unpublished, stopping in time for
   * the flashblock to be published by `until` (a performance.now() time), past at least one transaction; `sealing`:
   * the block's last flashblock under load, which leaves room for the seal too. True if it left transactions for later.
   */
  include(until: number, sealing: boolean): Promise<boolean>
  /** Publishes the next flashblock, with what arrived since `include` and fits before `until`. */
  preconfirm(until: number): Promise<unknown>
  /** Seals the block, as preconfirm bounded by `until`, and starts the next one. */
  seal(until: number): Promise<void>
  log: (line: string) => void
}

/** The most ms before a flashblock is due that the clock starts executing its transactions. */
const maxLead = 50
/** The share of the lead a flashblock's own inclusion, at its deadline, may take for what arrived meanwhile. */
const LATE_SHARE = 0.2

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve())

export function createFlashblockClock(turns: ClockTurns): FlashblockClock {
  let timer: NodeJS.Timeout | undefined
  /** Stops the flashblock clock start() set going, if any. */
  let stopClock = () => {}
  return {
    start({ blockTime, flashblockInterval }) {
      const perBlock = Math.max(1, Math.round(blockTime / flashblockInterval))
      const lead = Math.min(maxLead, Math.floor(flashblockInterval / 4))
      // Turn k starts at origin + k × interval, a fixed schedule: a turn of the event loop that comes late delays
      // one flashblock, not every one after it, and blocks keep their time.
      stopClock()
      const origin = performance.now()
      const clock = { stopped: false }
      let done = 0
      // The last turn ran out of time with transactions left: the next one starts at once, not `lead` before its
      // deadline, so that a backlog is executed through the whole interval while flashblocks keep their time.
      let backlog = false
      stopClock = () => {
        clock.stopped = true
        clearTimeout(timer)
        timer = undefined
      }
      // A restarted clock (after automine) goes on with the block it left, pre-confirmed transactions and all.
      void turns.serially(turns.begin)
      // Each turn starts `lead` ms before its flashblock is due. What the pool holds then is executed, up to the
      // deadline (less what publishing will take, which the producer learns), and what arrives in the last `lead` ms
      // is taken at the deadline, for a fifth of the lead at most: a flashblock goes out on time, rather than after
      // executing everything that came in since the last one, and under a load it cannot take, what does not fit
      // waits for the next. The next turn is timed once this one is done, so turns never queue up behind a slow one.
      const next = () => {
        if (clock.stopped) return
        timer = setTimeout(turn, backlog ? 0 : Math.max(0, origin + (done + 1) * flashblockInterval - performance.now()))
      }
      const turn = () => {
        // The newest flashblock whose turn has come: those the loop was too busy to start go out as this one, and a
        // seal passed over is made now.
        const k = Math.max(done + 1, Math.floor((performance.now() - origin) / flashblockInterval))
        const last = Math.floor(k / perBlock) > Math.floor(done / perBlock)
        done = k
        const due = origin + k * flashblockInterval + lead
        const late = due + lead * LATE_SHARE
        void turns
          .serially(async () => {
            // Under a load the last turn could not take, the block's last flashblock leaves room for the seal too;
            // otherwise the seal's time is the next flashblock's to make up, and no transaction waits a block for it.
            backlog = await turns.include(due, last && backlog)
            // Out of time with transactions left, what was taken goes out now: its inclusion stopped early enough
            // for publishing to end by the deadline. Otherwise the flashblock waits for it, and takes what came
            // meanwhile, for a fifth of the lead at most.
            if (!backlog) await sleep(due - performance.now())
            const until = backlog ? performance.now() : late
            if (last) await turns.seal(until)
            else await turns.preconfirm(until)
          })
          .catch((error) => turns.log(`${last ? 'block production' : 'flashblock'} failed: ${error instanceof Error ? error.stack : error}`))
          .finally(next)
      }
      next()
    },
    stop: () => stopClock(),
  }
}
