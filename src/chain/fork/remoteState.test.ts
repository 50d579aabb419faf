import { KECCAK256_NULL, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { Address } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { createStateHistory } from '../state/history.ts'
import { StateMiss, untilFetched, warmingReads } from '../state/miss.ts'
import { createOverlay } from '../state/overlay.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { createStateDiff } from '../state/types.ts'
import { createRemoteState, servedBy, upstreamSource } from './remoteState.ts'

import type { Hex } from '../../hex.ts'
import type { UpstreamAccount, UpstreamState } from './upstream.ts'

const alice = '0x00000000000000000000000000000000000a11ce' as Hex
const token = '0x000000000000000000000000000000000000c0de' as Hex
const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex

/**
 * An upstream whose state is the maps given, answering after a turn of the event loop as a remote one does, and
 * recording what it was asked. Its trace of a call (`traced`) names the keys given for the call's target.
 */
function upstreamOf(
  accounts: Record<Hex, UpstreamAccount>,
  storage: Record<string, bigint>,
  traced: Record<Hex, { accounts: Hex[]; slots: [Hex, Hex][] } | Error> = {},
) {
  const asked: string[] = []
  const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)))
  const accountOf = (address: Hex) => accounts[address] ?? { balance: 0n, nonce: 0n, code: '0x' as Hex }
  const upstream: UpstreamState = {
    fork: { chainId: 1n, number: 100n, hash: `0x${'ab'.repeat(32)}` },
    kept: { account: () => undefined, storage: () => undefined },
    account(address) {
      asked.push(`account ${address}`)
      return later(accountOf(address))
    },
    storage(address, key) {
      asked.push(`storage ${address} ${key}`)
      return later(storage[`${address} ${key}`] ?? 0n)
    },
    async prestate(call) {
      asked.push(`prestate ${call.to}`)
      const trace = traced[call.to!] ?? { accounts: [], slots: [] }
      await later(undefined)
      if (trace instanceof Error) throw trace
      return {
        accounts: trace.accounts.map((address) => [address, accountOf(address)]),
        slots: trace.slots.map(([address, key]) => [address, key, storage[`${address} ${key}`] ?? 0n]),
      }
    },
  }
  return { upstream, asked }
}

// SLOAD(0) + SLOAD(1), stored at 2; then STOP. Storage reads the EVM must wait for.
const adder = hexToBytes('0x60005460015401600255000000')

describe('a fork upstream beneath the history', () => {
  test('a read of what is not fetched throws a miss that has started the fetch; once fetched, it answers at once', async () => {
    const { upstream, asked } = upstreamOf({ [alice]: { balance: 5n, nonce: 2n, code: '0x' } }, { [`${token} ${slot(1)}`]: 9n })
    const remote = createRemoteState(upstreamSource(upstream))
    const miss = (() => {
      try {
        remote.account(alice)
      } catch (error) {
        return error
      }
    })()
    expect(miss).toBeInstanceOf(StateMiss)
    expect(asked).toEqual([`account ${alice}`])
    await (miss as StateMiss).fetched
    expect(remote.account(alice)).toMatchObject({ balance: 5n, nonce: 2n })
    expect(await untilFetched(() => remote.storage(token, '0x01' as Hex))).toEqual(new Uint8Array([9]))
    // An empty account is no account, as EIP-161 has it; a zero slot is empty.
    expect(await untilFetched(() => remote.account(token))).toBeUndefined()
    expect(await untilFetched(() => remote.storage(token, slot(7)))).toEqual(new Uint8Array())
    const before = asked.length
    remote.account(alice)
    remote.storage(token, slot(1))
    expect(asked.length).toBe(before)
  })

  test('local writes shadow the upstream: a written key, a deleted account and wiped storage never read it', async () => {
    const { upstream, asked } = upstreamOf(
      { [alice]: { balance: 5n, nonce: 0n, code: '0x' }, [token]: { balance: 0n, nonce: 1n, code: '0x00' } },
      { [`${token} ${slot(1)}`]: 9n, [`${token} ${slot(2)}`]: 4n },
    )
    const history = createStateHistory(undefined, createRemoteState(upstreamSource(upstream)))
    history.commit(
      100n,
      (() => {
        const diff = createStateDiff()
        diff.accounts.set(alice, { nonce: 1n, balance: 7n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_NULL })
        diff.storage.set(token, { cleared: false, slots: new Map([[slot(1), new Uint8Array([3])]]) })
        return diff
      })(),
    )
    const at = history.at(100n)
    expect(at.waits).toBe(true)
    expect(at.account(alice)?.balance).toBe(7n)
    expect(at.storage(token, slot(1))).toEqual(new Uint8Array([3]))
    expect(asked).toEqual([])
    // A slot no block wrote is the upstream's.
    expect(await untilFetched(() => at.storage(token, slot(2)))).toEqual(new Uint8Array([4]))
    const code = await untilFetched(() => at.code(bytesToHex((at.account(token) ?? fail()).codeHash) as Hex))
    expect(code).toEqual(new Uint8Array([0]))
    // A block that wipes the storage and deletes the account hides the upstream's from there on.
    const wipe = createStateDiff()
    wipe.accounts.set(token, null)
    wipe.storage.set(token, { cleared: true, slots: new Map() })
    history.commit(101n, wipe)
    expect(history.at(101n).account(token)).toBeUndefined()
    expect(history.at(101n).storage(token, slot(2))).toEqual(new Uint8Array())
    expect(history.at(100n).storage(token, slot(2))).toEqual(new Uint8Array([4]))
  })

  test("the EVM waits for the upstream's slots: no synchronous SLOAD on a base that may wait", async () => {
    const codeHash = keccak256(adder)
    const { upstream, asked } = upstreamOf(
      { [token]: { balance: 0n, nonce: 1n, code: bytesToHex(adder) as Hex } },
      { [`${token} ${slot(0)}`]: 20n, [`${token} ${slot(1)}`]: 22n },
    )
    const history = createStateHistory(undefined, createRemoteState(upstreamSource(upstream)))
    history.commit(100n, createStateDiff())
    const stateManager = new FlatStateManager(createOverlay(createStateDiff(), history.at(100n)))
    expect(stateManager.getStorageSync).toBeUndefined()
    expect(new FlatStateManager(createStateHistory().at(0n)).getStorageSync).toBeTypeOf('function')
    const vm = await createVM({ stateManager })
    const result = await vm.evm.runCall({ to: new Address(hexToBytes(token)), gasLimit: 100_000n })
    expect(result.execResult.exceptionError).toBeUndefined()
    expect(await stateManager.getStorage(new Address(hexToBytes(token)), hexToBytes(slot(2)))).toEqual(new Uint8Array([42]))
    expect(bytesToHex(codeHash)).toBe(bytesToHex(keccak256(await stateManager.getCode(new Address(hexToBytes(token))))))
    // Each key once, however often the run reads it: the caller (the zero address here), the contract, its slots.
    expect(asked).toEqual([
      `account 0x${'00'.repeat(20)}`,
      `account ${token}`,
      `storage ${token} ${slot(0)}`,
      `storage ${token} ${slot(1)}`,
      `storage ${token} ${slot(2)}`,
    ])
  })

  test("a run's first miss also asks for the upstream's trace of its call: the rest of the run reads what it brought", async () => {
    const zero = `0x${'00'.repeat(20)}` as Hex
    const state = { [token]: { balance: 0n, nonce: 1n, code: bytesToHex(adder) as Hex } }
    const slots = { [`${token} ${slot(0)}`]: 20n, [`${token} ${slot(1)}`]: 22n }
    const run = async (trace: { accounts: Hex[]; slots: [Hex, Hex][] } | Error) => {
      const { upstream, asked } = upstreamOf(state, slots, { [token]: trace })
      const remote = createRemoteState(upstreamSource(upstream))
      const history = createStateHistory(undefined, remote)
      history.commit(100n, createStateDiff())
      const warming = () => ({ first: remote.warm({ to: token }), pending: () => undefined })
      const stateManager = new FlatStateManager(warmingReads(createOverlay(createStateDiff(), history.at(100n)), warming))
      const vm = await createVM({ stateManager })
      const result = await vm.evm.runCall({ to: new Address(hexToBytes(token)), gasLimit: 100_000n })
      expect(result.execResult.exceptionError).toBeUndefined()
      expect(await stateManager.getStorage(new Address(hexToBytes(token)), hexToBytes(slot(2)))).toEqual(new Uint8Array([42]))
      return asked
    }
    // The caller's account misses first, beside the trace, which brings the contract and its three slots: the run
    // reads on once both are here, and misses no more.
    const traced = await run({ accounts: [zero, token], slots: [0, 1, 2].map((n) => [token, slot(n)] as [Hex, Hex]) })
    expect(traced).toEqual([`account ${zero}`, `prestate ${token}`])
    // A trace that fails leaves each read to miss in turn, as without one, and is no one's unhandled rejection.
    const failed = await run(new Error('no debug namespace'))
    expect(failed).toEqual([`account ${zero}`, `prestate ${token}`, `account ${token}`, ...[0, 1, 2].map((n) => `storage ${token} ${slot(n)}`)])
  })

  test("a warming asks once, from the main thread for another thread's copy, and keeps what is held", async () => {
    const { upstream, asked } = upstreamOf(
      { [token]: { balance: 3n, nonce: 1n, code: '0x00' } },
      { [`${token} ${slot(5)}`]: 7n },
      {
        [token]: { accounts: [token], slots: [[token, slot(5)]] },
      },
    )
    const main = createRemoteState(upstreamSource(upstream))
    const worker = createRemoteState(servedBy(main))
    const warmed = await worker.warm({ to: token, data: '0x' })
    expect(warmed.slots).toEqual([[token, slot(5), new Uint8Array([7])]])
    // Both threads hold the account, its code and the slot: no read of them misses.
    for (const remote of [main, worker]) {
      expect(remote.account(token)?.balance).toBe(3n)
      expect(remote.code(bytesToHex(remote.account(token)!.codeHash) as Hex)).toEqual(new Uint8Array([0]))
      expect(remote.storage(token, slot(5))).toEqual(new Uint8Array([7]))
    }
    expect(asked).toEqual([`prestate ${token}`])
  })

  test('what the cache keeps is read at once; a warming for a miss the main thread holds asks nothing', async () => {
    const { upstream, asked } = upstreamOf({}, {}, { [token]: { accounts: [token], slots: [] } })
    const kept = { account: { balance: 4n, nonce: 1n, code: '0x00' as Hex }, slot: 6n }
    const main = createRemoteState(
      upstreamSource({
        ...upstream,
        kept: {
          account: (address) => (address === token ? kept.account : undefined),
          storage: (_address, key) => (key === slot(1) ? kept.slot : undefined),
        },
      }),
    )
    expect(main.account(token)?.balance).toBe(4n)
    expect(main.storage(token, slot(1))).toEqual(new Uint8Array([6]))
    // A worker's copy missed both; the main thread keeps them, so its warming asks the upstream for no trace.
    const worker = createRemoteState(servedBy(main))
    expect(await worker.warm({ to: token }, `account ${token}`)).toEqual({ accounts: [], slots: [] })
    expect(await worker.warm({ to: token }, `storage ${token} ${slot(1)}`)).toEqual({ accounts: [], slots: [] })
    expect(asked).toEqual([])
    // One the main thread lacks is traced.
    expect((await worker.warm({ to: token }, `storage ${token} ${slot(2)}`)).accounts.map(([address]) => address)).toEqual([token])
    expect(asked).toEqual([`storage ${token} ${slot(2)}`, `prestate ${token}`])
  })

  test("another thread's copy is served by the main thread's: each key is asked of the upstream once, code by hash too", async () => {
    const { upstream, asked } = upstreamOf({ [token]: { balance: 0n, nonce: 1n, code: bytesToHex(adder) as Hex } }, { [`${token} ${slot(0)}`]: 20n })
    const main = createRemoteState(upstreamSource(upstream))
    const worker = createRemoteState(servedBy(main))
    const account = await untilFetched(() => worker.account(token))
    expect(account?.nonce).toBe(1n)
    expect(worker.code(bytesToHex(account!.codeHash) as Hex)).toEqual(adder)
    expect(await untilFetched(() => worker.storage(token, slot(0)))).toEqual(new Uint8Array([20]))
    // The main thread holds what the worker asked for: its own reads ask nothing more.
    expect(main.account(token)?.nonce).toBe(1n)
    expect(main.storage(token, slot(0))).toEqual(new Uint8Array([20]))
    expect(asked).toEqual([`account ${token}`, `storage ${token} ${slot(0)}`])

    // A copy that starts later, over a history naming the code by hash alone, gets the code from the main thread.
    const later = createRemoteState(servedBy(main))
    expect(await untilFetched(() => later.code(bytesToHex(keccak256(adder)) as Hex))).toEqual(adder)
    // A hash the main thread does not hold stays unknown, asked once.
    const unknown = `0x${'12'.repeat(32)}` as Hex
    expect(await untilFetched(() => later.code(unknown))).toBeUndefined()
    expect(later.code(unknown)).toBeUndefined()
    expect(asked.length).toBe(2)
  })

  test("an upstream's failure reaches the reader that waits, and is no one's unhandled rejection", async () => {
    const failing: UpstreamState = {
      fork: { chainId: 1n, number: 1n, hash: `0x${'00'.repeat(32)}` },
      kept: { account: () => undefined, storage: () => undefined },
      account: () => Promise.reject(new Error('upstream down')),
      storage: () => Promise.reject(new Error('upstream down')),
      prestate: () => Promise.reject(new Error('upstream down')),
    }
    const remote = createRemoteState(upstreamSource(failing))
    // A miss no one waits for: the test run fails on an unhandled rejection if it leaks.
    expect(() => remote.storage(alice, slot(0))).toThrow(StateMiss)
    await expect(untilFetched(() => remote.account(alice))).rejects.toThrow('upstream down')
  })
})

function fail(): never {
  throw new Error('expected an account')
}
