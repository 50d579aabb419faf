/**
 * A replica reading its sequencer's stream through a proxy that drops, holds back, changes and freezes frames
 * (frameProxy.ts): a dropped frame is fetched, a late one is put in its place, a frozen connection is replaced, a
 * changed one is caught and the replica starts again from the sequencer's state. After each, it answers as the
 * sequencer does, and its pending block never showed a gap: every flashblock it published, it published in order.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { parseEther } from 'viem'

import { createReplica } from '../../src/follow/replica.ts'
import { Noisy, Store } from './fixtures/contracts.ts'
import { startFrameProxy } from './frameProxy.ts'
import { deploy, startChain } from './helpers.ts'
import { expectSameAnswers } from './replicaHelpers.ts'

import type { Hex } from 'viem'
import type { Replica } from '../../src/follow/replica.ts'
import type { FlashblockJSON } from '../../src/rpc/flashblocks.ts'
import type { FrameProxy } from './frameProxy.ts'
import type { TestChain } from './helpers.ts'
import type { ReadTargets } from './replicaHelpers.ts'

let sequencer: TestChain
let proxy: FrameProxy
let replica: Replica
let targets: ReadTargets
/** Every flashblock the replica published, as (block, index), in the order it published them. */
const published: [bigint, number][] = []

/** A transfer from dev account 2, pre-confirmed in a flashblock of its own. */
async function transfer(value: bigint): Promise<Hex> {
  const hash = await sequencer.wallet(2).sendTransaction({ to: sequencer.accounts[9]!.address, value })
  targets.newest = hash
  await sequencer.preconfirm()
  return hash
}

const same = () => expectSameAnswers(sequencer.url, [replica], targets)

beforeAll(async () => {
  sequencer = await startChain()
  proxy = await startFrameProxy(sequencer.url.replace('http', 'ws'))
  // A long interval: three of them without a frame while the sequencer publishes is a frozen connection.
  replica = await createReplica({ source: proxy.url, rpc: sequencer.url, host: '127.0.0.1', port: 0, flashblockInterval: 1000 })
  const token = await deploy(sequencer, Noisy, [parseEther('10')])
  const store = await deploy(sequencer, Store, [1n], 1)
  await sequencer.mine()
  targets = {
    accounts: [sequencer.accounts[0]!.address, sequencer.accounts[1]!.address],
    token: token.address,
    store: store.address,
    newest: store.hash,
  }
  await transfer(1n)
  await same()
})

afterAll(async () => {
  await replica.close()
  await proxy.close()
  await sequencer.close()
})

beforeEach(() => {
  published.length = 0
})

/** Listens to the replica's own stream of flashblocks, from now on. */
async function watchReplica(): Promise<() => void> {
  const socket = new WebSocket(`${replica.url.replace('http', 'ws')}/flashblocks?encoding=json`)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  socket.onmessage = (event) => {
    const frame = JSON.parse(String(event.data)) as FlashblockJSON
    published.push([BigInt(frame.metadata.block_number), frame.index])
  }
  return () => socket.close()
}

/** Each flashblock the replica published follows the one before: the next index of its block, or a next block's 0. */
function expectNoGap() {
  expect(published.length).toBeGreaterThan(0)
  for (let i = 1; i < published.length; i++) {
    const [number, index] = published[i]!
    const [before, beforeIndex] = published[i - 1]!
    expect(index === 0 ? number === before + 1n : number === before && index === beforeIndex + 1, `${published.join(' ')}`).toBe(true)
  }
}

describe('a replica behind a stream that loses, delays, changes and freezes frames', () => {
  test('a dropped frame is fetched with flashchain_getFlashblocks', async () => {
    const stop = await watchReplica()
    const before = replica.status()
    proxy.drop(1)
    await transfer(2n)
    await transfer(3n)
    await same()
    const after = replica.status()
    expect(after.gaps).toBeGreaterThan(before.gaps)
    expect(after.refetchedFrames).toBeGreaterThan(before.refetchedFrames)
    expect(after.resyncs).toBe(before.resyncs)
    stop()
    expectNoGap()
  })

  test('a frame held back is applied in its place when it comes, not fetched again', async () => {
    // A replica that waits as long as it takes for a frame that is late: what is fetched or not does not depend on
    // how busy the machine is.
    const patientProxy = await startFrameProxy(sequencer.url.replace('http', 'ws'))
    const patient = await createReplica({ source: patientProxy.url, rpc: sequencer.url, host: '127.0.0.1', port: 0, gapWaitMs: 600_000 })
    try {
      await transfer(4n)
      await expectSameAnswers(sequencer.url, [patient], targets)
      const before = patient.status()
      const passed = patientProxy.passed.length
      const release = patientProxy.holdNext()
      await transfer(5n)
      await transfer(6n)
      // The second frame came and waits for the first.
      for (let attempt = 0; patient.status().state !== 'catching up'; attempt++) {
        if (attempt === 4000) throw new Error(`the replica did not see the gap: ${JSON.stringify(patient.status())}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      release()
      await expectSameAnswers(sequencer.url, [patient], targets)
      const [second, first] = patientProxy.passed.slice(passed)
      expect(second).toBe(first! + 1)
      const after = patient.status()
      expect(after.refetchedFrames).toBe(before.refetchedFrames)
      expect(after.frames).toBe(before.frames + 2)
      expect(after.resyncs).toBe(before.resyncs)
    } finally {
      await patient.close()
      await patientProxy.close()
    }
  })

  test('a frozen connection is replaced once the sequencer has published and no frame came for three intervals', async () => {
    const before = replica.status()
    const connections = proxy.connections
    proxy.freeze()
    await transfer(6n)
    await same()
    const after = replica.status()
    expect(proxy.connections).toBe(connections + 1)
    expect(after.reconnects).toBe(before.reconnects + 1)
    expect(after.resyncs).toBe(before.resyncs)
    // And the new connection carries the frames after it.
    await transfer(7n)
    await same()
  })

  test('a frame whose block hash was changed on the way is caught, and the replica starts again from the sequencer', async () => {
    const before = replica.status()
    // A WebSocket client of the replica: its subscriptions are of the chain a resync replaces, so it is told to come again.
    const client = new WebSocket(replica.url.replace('http', 'ws'))
    await new Promise((resolve, reject) => {
      client.onopen = resolve
      client.onerror = reject
    })
    const closed = new Promise<number>((resolve) => {
      client.onclose = (event) => resolve(event.code)
    })
    proxy.tamperNext((text) => {
      const frame = JSON.parse(text) as FlashblockJSON
      frame.diff.block_hash = `0x${'11'.repeat(32)}`
      return JSON.stringify(frame)
    })
    await transfer(8n)
    await sequencer.mine()
    await transfer(9n)
    await same()
    const after = replica.status()
    expect(after.resyncs).toBe(before.resyncs + 1)
    expect(after.lastResync).toMatch(/block hash is 0x1111/)
    expect(after.state).toBe('following')
    expect(await closed).toBe(1012)
  })

  test('a frame whose transaction was changed on the way is caught too', async () => {
    const before = replica.status()
    proxy.tamperNext((text) => {
      const frame = JSON.parse(text) as FlashblockJSON
      // Another transaction of the sender's: a valid one, which runs, and gives another block.
      frame.diff.transactions = frame.diff.transactions.slice(0, -1)
      const hashes = Object.keys(frame.metadata.receipts)
      delete frame.metadata.receipts[hashes.at(-1) as Hex]
      return JSON.stringify(frame)
    })
    await transfer(10n)
    await transfer(11n)
    await same()
    expect(replica.status().resyncs).toBe(before.resyncs + 1)
  })

  test('a revert missed while the connection was frozen: the heads differ, and the replica loads the sequencer again', async () => {
    const before = replica.status()
    const snapshot = await sequencer.rpc<Hex>('evm_snapshot')
    await transfer(20n)
    await sequencer.mine()
    await transfer(21n)
    await sequencer.mine()
    await transfer(22n)
    await same()
    proxy.freeze()
    expect(await sequencer.rpc('evm_revert', [snapshot])).toBe(true)
    // The rewind's frame goes to a connection that passes nothing on.
    await transfer(23n)
    await same()
    const after = replica.status()
    expect(after.resyncs).toBe(before.resyncs + 1)
    expect(after.reconnects).toBe(before.reconnects + 1)
    expect(after.head.number).toBe(await sequencer.rpc('eth_blockNumber'))
  })
})
