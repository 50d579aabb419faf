import { Address, KECCAK256_NULL, KECCAK256_RLP, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { describe, expect, test } from 'vitest'

import { createRemoteState, upstreamSource } from '../fork/remoteState.ts'
import { createStateHistory } from '../state/history.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { createStateDiff } from '../state/types.ts'
import { warmedView } from './warming.ts'

import type { UpstreamAccount, UpstreamState, WarmCall } from '../fork/upstream.ts'
import type { BlockEnv } from '../types.ts'
import type { Hex } from '../../hex.ts'

const alice = '0x00000000000000000000000000000000000a11ce' as Hex
const token = '0x000000000000000000000000000000000000c0de' as Hex
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
// SLOAD(0) + SLOAD(1), stored at 2; then STOP.
const adder = '0x60005460015401600255000000' as Hex
const ENV = { number: 101n, timestamp: 1n, gasLimit: 30_000_000n, baseFeePerGas: 0n } as BlockEnv

/**
 * An upstream holding the adder with 20 and 22 in its slots, whose trace of a call reads as `trace` says for the
 * overrides it is given; each trace and read it was asked is recorded.
 */
function upstreamOf(trace: (overrides: WarmCall['overrides']) => Promise<[Hex, Hex][]>, hanging: Hex[] = []) {
  const asked: string[] = []
  const overrides: WarmCall['overrides'][] = []
  const accounts: Record<Hex, UpstreamAccount> = { [token]: { balance: 0n, nonce: 1n, code: adder }, [alice]: { balance: 1n, nonce: 0n, code: '0x' } }
  const slots: Record<string, bigint> = { [`${token} ${slot(0)}`]: 20n, [`${token} ${slot(1)}`]: 22n }
  const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)))
  const upstream: UpstreamState = {
    fork: { chainId: 1n, number: 100n, hash: `0x${'ab'.repeat(32)}` },
    kept: { account: () => undefined, storage: () => undefined },
    account(address) {
      asked.push(`account ${address}`)
      return later(accounts[address] ?? { balance: 0n, nonce: 0n, code: '0x' })
    },
    storage(address, key) {
      asked.push(`storage ${address} ${key}`)
      // A read the upstream never answers: only a trace can bring the slot.
      if (hanging.includes(key)) return new Promise(() => {})
      return later(slots[`${address} ${key}`] ?? 0n)
    },
    async prestate(call) {
      asked.push('trace')
      overrides.push(call.overrides)
      const read = await trace(call.overrides)
      return {
        accounts: [token, alice].map((address) => [address, accounts[address]!] as [Hex, UpstreamAccount]),
        slots: read
          .filter(([address, key]) => call.overrides?.[address]?.stateDiff?.[key] === undefined)
          .map(([address, key]) => [address, key, slots[`${address} ${key}`] ?? 0n]),
      }
    },
  }
  return { upstream, asked, overrides }
}

/** Runs the adder from alice on a fork of `upstream` whose local block gave alice 5 wei and wrote `local` to slot 1. */
async function runAdder(upstream: UpstreamState, local?: number) {
  const remote = createRemoteState(upstreamSource(upstream))
  const history = createStateHistory(undefined, remote)
  const diff = createStateDiff()
  diff.accounts.set(alice, { nonce: 0n, balance: 5n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP })
  if (local !== undefined) diff.storage.set(token, { cleared: false, slots: new Map([[slot(1), new Uint8Array([local])]]) })
  history.commit(100n, diff)
  const view = warmedView({ env: ENV, state: history.at(100n) }, { from: alice, to: token }, (call) => remote.warm(call))
  const stateManager = new FlatStateManager(view.state)
  const vm = await createVM({ stateManager })
  const result = await vm.evm.runCall({ caller: new Address(hexToBytes(alice)), to: new Address(hexToBytes(token)), gasLimit: 100_000n })
  expect(result.execResult.exceptionError).toBeUndefined()
  return bytesToHex(await stateManager.getStorage(new Address(hexToBytes(token)), hexToBytes(slot(2))))
}

describe("a fork's run, warmed by the upstream's traces of its call", () => {
  test('the first trace runs with the sender as it is here; the run reads the rest from what it brought', async () => {
    const { upstream, asked, overrides } = upstreamOf(async () => [
      [token, slot(0)],
      [token, slot(1)],
      [token, slot(2)],
    ])
    expect(await runAdder(upstream)).toBe('0x2a')
    // The contract's account missed first, beside the trace; nothing after it.
    expect(asked).toEqual([`account ${token}`, 'trace'])
    expect(overrides).toEqual([{ [alice]: { balance: '0x5', nonce: '0x0', code: '0x' } }])
  })

  test('a slot the upstream read that differs here is traced again with the local value, and the run does not wait for it', async () => {
    let again: () => void = () => {}
    const { upstream, asked, overrides } = upstreamOf((given) =>
      given?.[token] === undefined
        ? Promise.resolve([[token, slot(1)]])
        : // The second trace answers only once the run is over: the run never waits for it.
          new Promise((resolve) => (again = () => resolve([[token, slot(0)]]))),
    )
    expect(await runAdder(upstream, 3)).toBe('0x17')
    expect(asked).toEqual([`account ${token}`, 'trace', 'trace', `storage ${token} ${slot(0)}`, `storage ${token} ${slot(2)}`])
    expect(overrides[1]).toEqual({ [alice]: { balance: '0x5', nonce: '0x0', code: '0x' }, [token]: { stateDiff: { [slot(1)]: slot(3) } } })
    again()
  })

  test('a read that misses while the next trace is on its way reads again as soon as the trace brings it', async () => {
    // The first trace stops at slot 1, which differs here; the second, with it, brings the rest. The upstream never
    // answers a read of slot 0 or 2: the run ends only because it reads them from the second trace.
    const { upstream, asked } = upstreamOf(
      async (given) => {
        if (given?.[token] === undefined) return [[token, slot(1)]]
        // Later than the run's next read.
        await new Promise((resolve) => setTimeout(resolve, 20))
        return [0, 1, 2].map((n) => [token, slot(n)] as [Hex, Hex])
      },
      [slot(0), slot(2)],
    )
    expect(await runAdder(upstream, 3)).toBe('0x17')
    expect(asked.filter((what) => what === 'trace')).toHaveLength(2)
  })

  test('a trace that does not come holds the run back no longer than its read took: the reads go on one at a time', async () => {
    const { upstream, asked } = upstreamOf(() => new Promise(() => {}))
    expect(await runAdder(upstream)).toBe('0x2a')
    expect(asked).toEqual([`account ${token}`, 'trace', ...[0, 1, 2].map((n) => `storage ${token} ${slot(n)}`)])
  })

  test('what differs only in a balance of an account without code is no reason to trace again', async () => {
    const { upstream, asked } = upstreamOf(async () => [[token, slot(0)]])
    const remote = createRemoteState(upstreamSource(upstream))
    const history = createStateHistory(undefined, remote)
    const diff = createStateDiff()
    // The local coinbase's fees: alice holds more here than upstream, and she is not the caller.
    diff.accounts.set(alice, { nonce: 0n, balance: 9n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP })
    history.commit(100n, diff)
    const view = warmedView({ env: ENV, state: history.at(100n) }, { to: token }, (call) => remote.warm(call))
    const stateManager = new FlatStateManager(view.state)
    const vm = await createVM({ stateManager })
    await vm.evm.runCall({ to: new Address(hexToBytes(token)), gasLimit: 100_000n })
    await new Promise((resolve) => setImmediate(resolve))
    expect(asked.filter((what) => what === 'trace')).toHaveLength(1)
  })
})
