import { MessageChannel, Worker } from 'node:worker_threads'

import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { afterAll, describe, expect, test, vi } from 'vitest'

import { ExecutionRevertedError, ExecutionTimeoutError } from '../errors.ts'
import { createCallRunner } from './callRunner.ts'
import { devGenesis } from '../spec/devGenesis.ts'
import { createExecutionPool, startExecutionWorker, WorkerGoneError } from './workerPool.ts'
import { parseGethGenesis } from '../spec/genesis.ts'
import { createStateHistory } from '../state/history.ts'
import { createOverlay } from '../state/overlay.ts'
import { createStateDiff } from '../state/types.ts'
import { putAccount, testBlockEnv } from '../testing/fixtures.ts'

import type { ExecutionPool } from './workerPool.ts'
import type { WorkerInit } from './workerMessages.ts'
import type { CodeSizeLimit } from '../spec/forks.ts'
import type { StateDiff, StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

const sender = '0x00000000000000000000000000000000000000a1' as Hex
const reader = '0x00000000000000000000000000000000000000c0' as Hex
const reverter = '0x00000000000000000000000000000000000000c1' as Hex
const slot0 = `0x${'00'.repeat(32)}` as Hex
// PUSH0, SLOAD, PUSH0, MSTORE, PUSH1 32, PUSH0, RETURN: returns storage slot 0.
const returnsSlot0 = hexToBytes('0x5f545f5260205ff3')
// PUSH0, PUSH0, REVERT
const revertsEmpty = hexToBytes('0x5f5ffd')

const genesisJSON = devGenesis({ chainId: 1337n, hardfork: 'prague', gasLimit: 30_000_000n, timestamp: 0, alloc: {} })
const genesis = JSON.stringify(genesisJSON, (_key, value) => (typeof value === 'bigint' ? Number(value) : value))
const { common } = parseGethGenesis(genesisJSON)

function slotDiff(value: number): StateDiff {
  const diff = createStateDiff()
  diff.storage.set(reader, { cleared: false, slots: new Map([[slot0, Uint8Array.of(value)]]) })
  return diff
}

/** Block 0: the reader contract with slot 0 = 1, the reverter, and a funded sender. */
const history = createStateHistory()
const block0 = slotDiff(1)
putAccount(block0, reader, { code: returnsSlot0 })
putAccount(block0, reverter, { code: revertsEmpty })
putAccount(block0, sender, { balance: 10n ** 18n, nonce: 0n })
history.commit(0n, block0)

const env = testBlockEnv({ baseFeePerGas: 7n })

const started: Worker[] = []
const pools: ExecutionPool[] = []
/** What each test's worker starts from: the history above, block 0's hash, no fork, with `overrides`. */
function workerInit(overrides: Partial<WorkerInit> = {}): WorkerInit {
  const init: WorkerInit = {
    genesis,
    history: history.snapshot(),
    blockHashes: new Uint8Array(32),
    firstBlock: 0n,
    fork: false,
    traceMaxBytes: 1 << 25,
    rpcGasCap: 50_000_000n,
  }
  return { ...init, ...overrides }
}

function createPool(size = 1, idleMs?: number, timeoutMs?: number, codeSizeLimit?: CodeSizeLimit) {
  const pool = createExecutionPool({
    size,
    idleMs,
    timeoutMs,
    init: () => workerInit({ codeSizeLimit }),
    log: () => {},
    startWorker: (init, port) => {
      const worker = startExecutionWorker(init, port)
      started.push(worker)
      return worker
    },
  })
  pools.push(pool)
  return pool
}
afterAll(() => Promise.all(pools.map((pool) => pool.close())))

/**
 * Runs on the pool once a worker is ready (it loads for a moment after it starts, longer on a busy machine). The
 * bound only turns a worker that never loads into a failure with a reason, before the test's own timeout.
 */
async function onWorker(pool: ExecutionPool, ...args: Parameters<ExecutionPool['run']>) {
  for (let attempt = 0; attempt < 2_500; attempt++) {
    const answer = pool.run(...args)
    if (answer !== undefined) return answer
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('no worker became ready within 25 s')
}

const word = (value: number) => bytesToHex(Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? value : 0)))

describe('createExecutionPool', () => {
  const pool = createPool()

  test('default: a worker answers eth_call and eth_estimateGas on a sealed block as this thread does', async () => {
    const local = await createCallRunner({ common, blockHashes: () => undefined, rpcGasCap: 50_000_000n })
    const view = { env, state: history.at(0n) }
    const call = await onWorker(pool, 'eth_call', { to: reader }, view)
    expect(bytesToHex(call.value as Uint8Array)).toBe(word(1))
    expect(call.runs).toBe(1)
    const estimate = await onWorker(pool, 'eth_estimateGas', { from: sender, to: reader }, view)
    expect(estimate.value).toBe((await local.estimate({ from: sender, to: reader }, view)).gas)
    expect(pool.runs).toBe(2)
  })

  test('every field of the request reaches the worker: fees, value, nonce, gas and an access list change the answer as here', async () => {
    const local = await createCallRunner({ common, blockHashes: () => undefined, rpcGasCap: 50_000_000n })
    const view = { env, state: history.at(0n) }
    const request = {
      from: sender,
      to: reader,
      data: '0x01' as Hex,
      value: 5n,
      gas: 100_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
      nonce: 0n,
      type: 2,
      accessList: [{ address: reader, storageKeys: [slot0] }],
    }
    const here = (await local.estimate(request, view)).gas
    // Without its access list the same call costs less: a worker that lost the field would answer that.
    expect((await local.estimate({ ...request, accessList: undefined }, view)).gas).toBeLessThan(here)
    expect((await onWorker(pool, 'eth_estimateGas', request, view)).value).toBe(here)
    // A gas limit below what the call needs is refused there as here.
    const refused = await onWorker(pool, 'eth_estimateGas', { ...request, gas: 21_500n }, view).catch((error: unknown) => error)
    const refusedHere = await local.estimate({ ...request, gas: 21_500n }, view).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(Error)
    expect(refused).toBeInstanceOf((refusedHere as Error).constructor)
    expect({ ...(refused as Error) }).toEqual({ ...(refusedHere as Error) })
  })

  test('a pending state is sent with every parent the worker lacks, and found again later', async () => {
    const first = createOverlay(slotDiff(5), history.at(0n))
    const second = createOverlay(slotDiff(7), first)
    expect(bytesToHex((await onWorker(pool, 'eth_call', { to: reader }, { env, state: second })).value as Uint8Array)).toBe(word(7))
    expect(bytesToHex((await onWorker(pool, 'eth_call', { to: reader }, { env, state: first })).value as Uint8Array)).toBe(word(5))
  })

  test('states forgotten to bound the worker are sent again when needed', async () => {
    const states: StateReader[] = []
    let state = history.at(0n)
    for (let i = 0; i < 300; i++) states.push((state = createOverlay(slotDiff(i % 200), state)))
    for (const [i, each] of states.entries()) {
      expect(bytesToHex((await onWorker(pool, 'eth_call', { to: reader }, { env, state: each })).value as Uint8Array)).toBe(word(i % 200))
    }
    expect(bytesToHex((await onWorker(pool, 'eth_call', { to: reader }, { env, state: states[3]! })).value as Uint8Array)).toBe(word(3))
  })

  /** What the worker answers for slot 0 at `block` of its replica. */
  const slot0At = async (block: bigint) =>
    bytesToHex((await onWorker(pool, 'eth_call', { to: reader }, { env, state: history.at(block) })).value as Uint8Array)

  test('a block sealed after the worker started is readable once applied', async () => {
    const unfollow = history.follow((change) => pool.apply(change))
    history.apply({ kind: 'block', number: 1n, hash: new Uint8Array(32).fill(1), diff: slotDiff(9) })
    unfollow()
    expect(await slot0At(1n)).toBe(word(9))
    expect(await slot0At(0n)).toBe(word(1))
  })

  test('an edit, and a revert that forgets a block and takes the edit back, reach the worker as the history applied them', async () => {
    const unfollow = history.follow((change) => pool.apply(change))
    const undo = history.apply({ kind: 'edit', number: 1n, diff: slotDiff(11) })!
    expect(await slot0At(1n)).toBe(word(11))
    history.apply({ kind: 'block', number: 2n, hash: new Uint8Array(32).fill(2), diff: slotDiff(12) })
    expect(await slot0At(2n)).toBe(word(12))
    history.apply({ kind: 'rewind', number: 1n, undo: [{ number: 1n, undo }] })
    // Block 2 is forgotten there as here: a read past the head sees block 1's state, without the edit.
    expect(await slot0At(2n)).toBe(word(9))
    expect(await slot0At(1n)).toBe(word(9))
    history.apply({ kind: 'block', number: 2n, hash: new Uint8Array(32).fill(3), diff: slotDiff(13) })
    expect(await slot0At(2n)).toBe(word(13))
    unfollow()
  })

  test('error: a revert arrives as the same class, with its reason and data', async () => {
    const failure = await onWorker(pool, 'eth_call', { to: reverter }, { env, state: history.at(0n) }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ExecutionRevertedError)
    expect(failure).toMatchObject({ reason: undefined, message: 'execution reverted', data: '0x' })
  })

  test('a view that is not built from the chain stays on the calling thread', () => {
    const foreign: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }
    expect(pool.run('eth_call', { to: reader }, { env, state: foreign })).toBeUndefined()
  })

  test('the worker takes every run, however many it has queued: none falls to the calling thread', async () => {
    await onWorker(pool, 'eth_call', { to: reader }, { env, state: history.at(0n) })
    const view = { env, state: history.at(0n) }
    const taken = Array.from({ length: 1000 }, () => pool.run('eth_call', { to: reader }, view))
    expect(taken.every((answer) => answer !== undefined)).toBe(true)
    for (const answer of await Promise.all(taken)) expect(bytesToHex(answer!.value as Uint8Array)).toBe(word(1))
  })
})

describe('createExecutionPool: starting', () => {
  test('no worker starts before a run needs one; the first run starts it, and waits for it', async () => {
    const before = started.length
    const pool = createPool(2)
    expect(pool.size).toBe(0)
    expect(started.length).toBe(before)
    const answer = pool.run('eth_call', { to: reader }, { env, state: history.at(0n) })
    expect(answer).toBeDefined()
    expect(pool.size).toBe(2)
    expect(started.length).toBe(before + 2)
    expect(bytesToHex((await answer!).value as Uint8Array)).toBe(word(1))
  })

  test('fill starts the workers without a run; ready says when one has loaded', async () => {
    const pool = createPool(1)
    expect(pool.ready).toBe(false)
    pool.fill()
    expect(pool.size).toBe(1)
    expect(pool.ready).toBe(false)
    const worker = started.at(-1)!
    await onWorker(pool, 'eth_call', { to: reader }, { env, state: history.at(0n) })
    expect(pool.ready).toBe(true)
    // The run went to the worker fill started, and started no other.
    expect(started.at(-1)).toBe(worker)
    expect(pool.runs).toBe(1)
  })

  test('fill(afterMs) starts the workers that much later, once; a run before then starts them at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    let answer: ReturnType<ExecutionPool['run']>
    try {
      const later = createPool(1)
      later.fill(250)
      later.fill(250)
      expect(later.size).toBe(0)
      vi.advanceTimersByTime(249)
      expect(later.size).toBe(0)
      vi.advanceTimersByTime(1)
      expect(later.size).toBe(1)
      vi.advanceTimersByTime(1000)
      expect(later.size).toBe(1)

      const sooner = createPool(1)
      sooner.fill(250)
      answer = sooner.run('eth_call', { to: reader }, { env, state: history.at(0n) })
      expect(sooner.size).toBe(1)
      vi.advanceTimersByTime(250)
      expect(sooner.size).toBe(1)
    } finally {
      vi.useRealTimers()
    }
    expect(bytesToHex((await answer!)!.value as Uint8Array)).toBe(word(1))
  })

  test('a worker whose warm-up fails says why, and serves all the same', async () => {
    const lines: string[] = []
    const pool = createExecutionPool({
      size: 1,
      // Under this cap the warm-up's relay reverts (warmUp.test.ts); a call that needs less still runs.
      init: () => workerInit({ rpcGasCap: 30_000n }),
      log: (line) => lines.push(line),
    })
    pools.push(pool)
    const answer = await onWorker(pool, 'eth_call', { to: reader }, { env, state: history.at(0n) })
    expect(bytesToHex(answer.value as Uint8Array)).toBe(word(1))
    expect(lines).toEqual([expect.stringMatching(/^execution worker: warm-up failed: .*execution reverted/s)])
  })
})

describe('createExecutionPool: a worker that fails', () => {
  test('a run the worker cannot make (a bug, not an answer) rejects with its reason and counts no EVM run', async () => {
    // The run names an environment the worker was never sent, as a lost message would.
    let misaddress = false
    const pool = createExecutionPool({
      size: 1,
      init: () => workerInit(),
      log: () => {},
      startWorker: (init, port) => {
        // Between the pool and the worker, a relay that can change a run on its way.
        const relay = new MessageChannel()
        port.on('message', (message: unknown) => {
          relay.port1.postMessage(misaddress && Array.isArray(message) ? [...message.slice(0, 3), 999_999, ...message.slice(4)] : message)
        })
        relay.port1.on('message', (message: unknown) => port.postMessage(message))
        const worker = startExecutionWorker(init, relay.port2)
        worker.once('exit', () => {
          port.close()
          relay.port1.close()
        })
        return worker
      },
    })
    pools.push(pool)
    const view = { env, state: history.at(0n) }
    await onWorker(pool, 'eth_call', { to: reader }, view)
    expect(pool.runs).toBe(1)
    misaddress = true
    const failure = await onWorker(pool, 'eth_call', { to: reader }, view).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).message).toMatch(/^execution worker: Error: environment 999999 was never sent, or already forgotten/)
    expect(pool.runs).toBe(1)
    misaddress = false
    expect(bytesToHex((await onWorker(pool, 'eth_call', { to: reader }, view)).value as Uint8Array)).toBe(word(1))
  })
})

describe('createExecutionPool: a worker that exits', () => {
  test('its runs fail with WorkerGoneError, and a new worker takes the next', async () => {
    const pool = createPool()
    const view = { env, state: history.at(0n) }
    await onWorker(pool, 'eth_call', { to: reader }, view)
    const worker = started.at(-1)!
    // Stopped before the run is posted, so it can never answer it.
    const stopping = worker.terminate()
    const running = pool.run('eth_call', { to: reader }, view)!
    await stopping
    await expect(running).rejects.toBeInstanceOf(WorkerGoneError)
    expect(started.at(-1)).not.toBe(worker)
    expect(bytesToHex((await onWorker(pool, 'eth_call', { to: reader }, view)).value as Uint8Array)).toBe(word(1))
  })
})

/**
 * A pool of one worker whose `start`th start (from 0) fails as it loads when `fails` says so, and loads otherwise: the
 * lines it logs, and how many it started.
 */
function poolOfOne(fails: (start: number) => boolean) {
  let count = 0
  const lines: string[] = []
  const pool = createExecutionPool({
    size: 1,
    init: () => workerInit(),
    log: (line) => lines.push(line),
    startWorker: (init, port) => {
      const worker = fails(count++) ? new Worker('throw new Error("cannot load")', { eval: true }) : startExecutionWorker(init, port)
      started.push(worker)
      return worker
    },
  })
  pools.push(pool)
  return { pool, lines, starts: () => count }
}

describe('createExecutionPool: a worker that cannot load', () => {
  test('is started three times in a row, then no more, and the caller runs its calls itself', async () => {
    const { pool, lines, starts } = poolOfOne(() => true)
    const view = { env, state: history.at(0n) }
    const giveUp = /3 in a row exited before they loaded, so calls run on the main thread$/
    // Each run starts the pool up to its size; each worker fails as it loads, and the next is started by its exit.
    const first = pool.run('eth_call', { to: reader }, view)
    await expect(first).rejects.toBeInstanceOf(WorkerGoneError)
    for (let attempt = 0; attempt < 2_500 && !lines.some((line) => giveUp.test(line)); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    expect(lines.filter((line) => line.startsWith('execution worker exited (1)'))).toEqual([
      'execution worker exited (1); starting another',
      'execution worker exited (1); starting another',
      expect.stringMatching(giveUp),
    ])
    expect(starts()).toBe(3)
    // A run now starts none and finds no worker: the caller runs it on its own thread (calls.ts).
    expect(pool.run('eth_call', { to: reader }, view)).toBeUndefined()
    pool.fill()
    expect(starts()).toBe(3)
    expect(pool.size).toBe(0)
  })
})

describe('createExecutionPool: a worker that loads after others could not', () => {
  test('counts the failures afresh: two more in a row are started again, and runs go to the worker that loads', async () => {
    // Which starts fail as they load: the first two, then the fourth and fifth, around one that loads.
    const fails = [true, true, false, true, true]
    const { pool, lines, starts } = poolOfOne((start) => fails[start] ?? false)
    const view = { env, state: history.at(0n) }
    // A run sent to a worker that fails as it loads fails with it, as calls.ts sends it again: until one answers.
    const answered = async () => {
      for (let attempt = 0; attempt < 10; attempt++) {
        const answer = await onWorker(pool, 'eth_call', { to: reader }, view).catch((error: unknown) => {
          if (error instanceof WorkerGoneError) return undefined
          throw error
        })
        if (answer !== undefined) return bytesToHex(answer.value as Uint8Array)
      }
      throw new Error('no worker answered in 10 runs')
    }
    expect(await answered()).toBe(word(1))
    expect(starts()).toBe(3)
    // That worker goes; its successors fail twice, which is under the three in a row the pool gives up at.
    await started.at(-1)!.terminate()
    for (let attempt = 0; attempt < 2_500 && starts() < 6; attempt++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(starts()).toBe(6)
    expect(lines.filter((line) => /before they loaded/.test(line))).toEqual([])
    expect(await answered()).toBe(word(1))
    expect(starts()).toBe(6)
  })
})

describe('createExecutionPool: idle workers', () => {
  test('a worker with no run for idleMs exits without a replacement; the next run starts one, which answers', async () => {
    const pool = createPool(1, 200)
    const view = { env, state: history.at(0n) }
    await onWorker(pool, 'eth_call', { to: reader }, view)
    const worker = started.at(-1)!
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    // Checked every idleMs / 2: gone within 1.5 idleMs of its last run, and nothing started in its place.
    await exited
    expect(pool.size).toBe(0)
    expect(started.at(-1)).toBe(worker)
    // The first run after idleness starts a worker and waits for it, rather than run on the caller's thread.
    const waiting = pool.run('eth_call', { to: reader }, view)
    expect(waiting).toBeDefined()
    expect(pool.size).toBe(1)
    expect(started.at(-1)).not.toBe(worker)
    expect(bytesToHex((await waiting!).value as Uint8Array)).toBe(word(1))
    expect(started.length).toBe(started.indexOf(worker) + 2)
  })

  test('a worker sent a run within every idleMs stays; once none comes for idleMs, it exits', async () => {
    // The pool's clock is faked, so a machine too busy to keep real time cannot stand for an idle worker.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] })
    try {
      const pool = createPool(1, 300)
      const view = { env, state: history.at(0n) }
      await onWorker(pool, 'eth_call', { to: reader }, view)
      const worker = started.at(-1)!
      const exited = new Promise((resolve) => worker.once('exit', resolve))
      let gone = false
      void exited.then(() => (gone = true))
      // Ten runs 250 ms apart: 2.5 s in all, past idleMs many times over, never idleMs without a run.
      for (let i = 0; i < 10; i++) {
        vi.advanceTimersByTime(250)
        await onWorker(pool, 'eth_call', { to: reader }, view)
      }
      expect(gone).toBe(false)
      expect(started.at(-1)).toBe(worker)
      expect(pool.size).toBe(1)
      // Idle for idleMs, and then until the next check (every tenth of it) sees so.
      vi.advanceTimersByTime(600)
      await exited
      expect(pool.size).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('createExecutionPool: the EVM timeout', () => {
  // bn254 scalar multiplications (the 0x07 precompile) until the gas is gone: the point (1, 2) and a scalar of all
  // ones at memory 0, then JUMPDEST at 46, STATICCALL(gas, 0x07, 0, 96, 96, 64), POP, JUMP 46. The 2^24 gas
  // EIP-7825 leaves a call buys some 2,800 of them: seconds of work, where a cheap opcode loop took about the
  // timeout itself.
  const looper = '0x00000000000000000000000000000000000000c2' as Hex
  const loops = createStateDiff()
  putAccount(loops, looper, { code: hexToBytes(`0x60016000526002602052${'7f'}${'ff'.repeat(32)}6040525b604060606060600060075afa50602e56`) })

  test('a run past the timeout fails with a timeout, its worker is replaced, and the next run answers', async () => {
    const pool = createPool(1, 0, 300)
    const view = { env, state: createOverlay(loops, history.at(0n)) }
    await onWorker(pool, 'eth_call', { to: reader }, { env, state: history.at(0n) })
    const worker = started.at(-1)!
    const failure = await pool.run('eth_call', { to: looper, gas: 2n ** 24n }, view)!.catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ExecutionTimeoutError)
    expect(failure).toMatchObject({ timeoutMs: 300, during: 'call' })
    // Its replacement is there at once: the next run waits for it, and never falls to the calling thread.
    const next = pool.run('eth_call', { to: reader }, { env, state: history.at(0n) })
    expect(next).toBeDefined()
    expect(bytesToHex((await next!).value as Uint8Array)).toBe(word(1))
    expect(started.at(-1)).not.toBe(worker)
  })
})

describe('the code size limit reaches the worker', () => {
  // PUSH2 25000, PUSH1 0, RETURN: deploys 25,000 zero bytes, over EIP-170's 24,576.
  const deploys25k = { from: sender, data: '0x6161a86000f3' as Hex }
  const view = { env, state: history.at(0n) }

  test("default: EIP-170's limit, in geth's words", async () => {
    await expect(onWorker(createPool(), 'eth_call', deploys25k, view)).rejects.toThrow(/^max code size exceeded$/)
  })

  test('none: the code is deployed, and the limit given: up to it and no further', async () => {
    const call = await onWorker(createPool(1, undefined, undefined, 'none'), 'eth_call', deploys25k, view)
    expect((call.value as Uint8Array).length).toBe(25_000)
    const limited = createPool(1, undefined, undefined, 24_999)
    await expect(onWorker(limited, 'eth_call', deploys25k, view)).rejects.toThrow(/^max code size exceeded$/)
    const fits = await onWorker(limited, 'eth_call', { ...deploys25k, data: '0x6161a76000f3' as Hex }, view)
    expect((fits.value as Uint8Array).length).toBe(24_999)
  })
})
