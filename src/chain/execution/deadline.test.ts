import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { devGenesis } from '../spec/devGenesis.ts'
import { parseGethGenesis } from '../spec/genesis.ts'
import { createStateHistory } from '../state/history.ts'
import { createStateDiff } from '../state/types.ts'
import { putAccount, testBlockEnv } from '../testing/fixtures.ts'
import { DeadlinePassedError } from './deadline.ts'
import { createCallRunner } from './callRunner.ts'
import { createExecutor } from './executor.ts'

import type { Hex } from '../../hex.ts'

const looper = `0x${'10'.repeat(20)}` as Hex
const returner = `0x${'20'.repeat(20)}` as Hex
// JUMPDEST, PUSH0, JUMP: back to 0 until the gas is gone.
const LOOP = hexToBytes('0x5b5f56')
// PUSH1 42, PUSH0, MSTORE, PUSH1 32, PUSH0, RETURN: returns 42.
const RETURNS_42 = hexToBytes('0x602a5f5260205ff3')

const { common } = parseGethGenesis(devGenesis({ chainId: 1337n, hardfork: 'osaka', gasLimit: 30_000_000n, timestamp: 0, alloc: {} }))
const history = createStateHistory()
const diff = createStateDiff()
putAccount(diff, looper, { code: LOOP })
putAccount(diff, returner, { code: RETURNS_42 })
history.commit(0n, diff)
const env = testBlockEnv()
const view = { env, state: history.at(0n) }

describe('deadlines', () => {
  test('a run past its deadline is dropped at a jump, and the executor runs the next call as before', async () => {
    const executor = await createExecutor({ common, blockHashes: () => undefined, deadlines: true })
    await expect(executor.call({ to: looper }, 1_000_000n, { ...view, deadline: performance.now() - 1 })).rejects.toThrow(DeadlinePassedError)
    const outcome = await executor.call({ to: returner }, 1_000_000n, { ...view, deadline: performance.now() - 1 })
    // Code without a jump is never dropped: it ends on its own.
    expect(outcome).toMatchObject({ kind: 'success', returnValue: Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 42 : 0)) })
    const loop = await executor.call({ to: looper }, 1_000_000n, view)
    expect(loop).toMatchObject({ kind: 'halt', error: 'out of gas' })
  })

  test('an estimate past its deadline is dropped too, not answered with a gas its search could not finish', async () => {
    const runner = await createCallRunner({ common, blockHashes: () => undefined, rpcGasCap: 1_000_000n, deadlines: true })
    await expect(runner.estimate({ to: looper }, { ...view, deadline: performance.now() - 1 })).rejects.toThrow(DeadlinePassedError)
    expect(await runner.estimate({ to: returner }, { ...view, deadline: performance.now() - 1 })).toMatchObject({ gas: expect.any(BigInt) })
  })

  test('an executor that does not watch deadlines runs past them', async () => {
    const executor = await createExecutor({ common, blockHashes: () => undefined })
    const outcome = await executor.call({ to: looper }, 1_000_000n, { ...view, deadline: performance.now() - 1 })
    expect(outcome).toMatchObject({ kind: 'halt', error: 'out of gas' })
  })
})
