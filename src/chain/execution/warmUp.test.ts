import { describe, expect, test } from 'vitest'

import { hardforks } from '../spec/config.ts'
import { devGenesis } from '../spec/devGenesis.ts'
import { parseGethGenesis } from '../spec/genesis.ts'
import { createCallRunner } from './callRunner.ts'
import { warmUpRunner } from './warmUp.ts'

import type { HardforkName } from '../spec/config.ts'

function runnerOn(hardfork: HardforkName, rpcGasCap = 50_000_000n) {
  const { common } = parseGethGenesis(devGenesis({ chainId: 1337n, hardfork, gasLimit: 30_000_000n, timestamp: 0, alloc: {} }))
  return createCallRunner({ common, blockHashes: () => undefined, rpcGasCap })
}

describe('warmUpRunner', () => {
  test.each(hardforks)('runs the token, the approval, the relay and the balance read on %s', async (hardfork) => {
    const runner = await runnerOn(hardfork)
    await warmUpRunner(runner)
    // The deploy, the approval, the relay's estimate search and its execution, the balance call.
    expect(runner.executor.runs).toBeGreaterThanOrEqual(5)
  })

  test('fails, rather than go on, when a run does not do what the contract says', async () => {
    // Under this cap the relay's call into the token runs out of gas, and the relay's require reverts.
    await expect(warmUpRunner(await runnerOn('osaka', 30_000n))).rejects.toThrow(/^execution reverted$/)
  })
})
