import { expect } from 'vitest'

import type { TestChain } from '../e2e/helpers.ts'

/** Where the load was when a probe's request was sent, and when its answer came. */
export type ProbeAnswer = { sent: number; answered: number }

/**
 * Another client beside a load: it asks eth_chainId, one request at a time with a pause between, until stopped, and
 * places each answer in the load by `progress`, a count the load keeps (blocks mined, pings sent, transactions
 * answered), read when the request is sent and when its answer comes. A node that serves the load ahead of other
 * clients answers them many steps late, however fast the machine; how many milliseconds an answer took is a figure
 * for the benchmark (bench/resilience.ts), not for a test.
 */
export function startProbe(t: TestChain, progress: () => number, pauseMs = 25) {
  const answers: ProbeAnswer[] = []
  let running = true
  const asking = (async () => {
    while (running) {
      const sent = progress()
      expect(await t.rpc('eth_chainId')).toBe('0x7a69')
      answers.push({ sent, answered: progress() })
      await new Promise((resolve) => setTimeout(resolve, pauseMs))
    }
  })()
  return {
    /** Stops asking, and resolves with every answer in order once the last request is answered. */
    async stop(): Promise<ProbeAnswer[]> {
      running = false
      await asking
      return answers
    },
  }
}

/** The answers that came more than `steps` steps of the load after their request was sent. */
export const lateAnswers = (answers: ProbeAnswer[], steps: number): ProbeAnswer[] => answers.filter(({ sent, answered }) => answered - sent > steps)
