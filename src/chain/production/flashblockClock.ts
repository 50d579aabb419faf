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
  /** Executes what the pool holds into the block being built (started if none is), unpublished. */
  include(): Promise<void>
  /** Publishes the next flashblock. */
  preconfirm(): Promise<unknown>
  /** Seals the block and starts the next one. */
  seal(): Promise<void>
  log: (line: string) => void
}

/** The most ms before a flashblock is due that the clock starts executing its transactions. */
const maxLead = 50

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
      stopClock = () => {
        clock.stopped = true
        clearTimeout(timer)
        timer = undefined
      }
      // A restarted clock (after automine) goes on with the block it left, pre-confirmed transactions and all.
      void turns.serially(turns.begin)
      // Each turn starts `lead` ms before its flashblock is due. What the pool holds then is executed at once, and
      // only what arrives in the last `lead` ms is left for the deadline: a flashblock goes out on time, rather than
      // after executing everything that came in since the last one. The next turn is timed once this one is done,
      // so turns never queue up behind a slow one.
      const next = () => {
        if (clock.stopped) return
        timer = setTimeout(turn, Math.max(0, origin + (done + 1) * flashblockInterval - performance.now()))
      }
      const turn = () => {
        // The newest flashblock whose turn has come: those the loop was too busy to start go out as this one, and a
        // seal passed over is made now.
        const k = Math.max(done + 1, Math.floor((performance.now() - origin) / flashblockInterval))
        const last = Math.floor(k / perBlock) > Math.floor(done / perBlock)
        done = k
        const due = origin + k * flashblockInterval + lead
        void turns
          .serially(async () => {
            await turns.include()
            await sleep(due - performance.now())
            if (!last) return void (await turns.preconfirm())
            await turns.seal()
          })
          .catch((error) => turns.log(`${last ? 'block production' : 'flashblock'} failed: ${error instanceof Error ? error.stack : error}`))
          .finally(next)
      }
      next()
    },
    stop: () => stopClock(),
  }
}
