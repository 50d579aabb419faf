// patches/ changes how four @ethereumjs packages compute, never what. These tests pin what they compute, and show
// that the interpreter's inline path is really in use.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM } from '@ethereumjs/evm'
import { countCalldataFloorTokens, createFeeMarket1559Tx } from '@ethereumjs/tx'
import {
  Account,
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  bytesToUnprefixedHex,
  createAddressFromString,
  createZeroAddress,
  hexToBytes,
  setLengthLeft,
  setLengthRight,
  toBytes,
} from '@ethereumjs/util'
import { keccak_256, sha3_256 } from '@noble/hashes/sha3.js'
import { bytesToHex as nobleBytesToHex } from '@noble/hashes/utils.js'
import { describe, expect, test } from 'vitest'

import { devGenesis } from '../spec/devGenesis.ts'
import { expectsPublishedBuild } from '../../../test/support/ethereumjsBuild.ts'
import { PATCHED_PACKAGES, unpatchedPackages } from './patches.ts'
import { parseGethGenesis } from '../spec/genesis.ts'
import { createOverlay } from '../state/overlay.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { createStateDiff } from '../state/types.ts'

import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

describe('@ethereumjs/util', () => {
  test('setLengthLeft and setLengthRight pad with zeros, keep equal lengths and refuse to truncate', () => {
    expect(bytesToHex(setLengthLeft(hexToBytes('0x0102'), 4))).toBe('0x00000102')
    expect(bytesToHex(setLengthRight(hexToBytes('0x0102'), 4))).toBe('0x01020000')
    expect(bytesToHex(setLengthLeft(new Uint8Array(0), 2))).toBe('0x0000')
    const exact = hexToBytes('0xaabb')
    expect(setLengthLeft(exact, 2)).toBe(exact)
    expect(() => setLengthLeft(hexToBytes('0x010203'), 2)).toThrow('Input length 3 exceeds target length 2')
    expect(bytesToHex(setLengthLeft(hexToBytes('0x010203'), 2, { allowTruncate: true }))).toBe('0x0203')
    expect(bytesToHex(setLengthRight(hexToBytes('0x010203'), 2, { allowTruncate: true }))).toBe('0x0102')
  })

  test('bigIntToBytes gives minimal big-endian bytes', () => {
    expect(bytesToHex(bigIntToBytes(0n))).toBe('0x00')
    expect(bytesToHex(bigIntToBytes(1n))).toBe('0x01')
    expect(bytesToHex(bigIntToBytes(0xabcn))).toBe('0x0abc')
    expect(bytesToHex(bigIntToBytes(2n ** 256n - 1n))).toBe(`0x${'ff'.repeat(32)}`)
    expect(bytesToHex(bigIntToBytes(0x0102n, true))).toBe('0x0201')
  })

  test('bytesToBigInt reads big-endian integers of every length, also from a view into a larger buffer', () => {
    for (const length of [0, 1, 2, 3, 6, 7, 8, 20, 31, 32, 33]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + 255) % 256)
      const expected = length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`)
      expect(bytesToBigInt(bytes)).toBe(expected)
    }
    const word = hexToBytes(`0x${'ff'.repeat(32)}`)
    expect(bytesToBigInt(word)).toBe(2n ** 256n - 1n)
    const backing = new Uint8Array(40)
    backing.set(hexToBytes(`0x${'00'.repeat(31)}2a`), 5)
    expect(bytesToBigInt(backing.subarray(5, 37))).toBe(42n)
    expect(bytesToBigInt(hexToBytes('0x0102'), true)).toBe(0x0201n)
  })

  test('bytesToHex and bytesToUnprefixedHex encode as noble does, also views into a larger buffer', () => {
    const backing = Uint8Array.from({ length: 300 }, (_, i) => (i * 97 + 13) % 256)
    for (const [start, end] of [
      [0, 0],
      [0, 1],
      [0, 20],
      [7, 39],
      [0, 300],
      [299, 300],
    ] as const) {
      const bytes = backing.subarray(start, end)
      expect(bytesToUnprefixedHex(bytes)).toBe(nobleBytesToHex(bytes))
      expect(bytesToHex(bytes)).toBe(`0x${nobleBytesToHex(bytes)}`)
    }
    expect(() => bytesToUnprefixedHex([1, 2] as unknown as Uint8Array)).toThrow()
  })

  test('an Address gives the same hex every time, as bytesToHex would', () => {
    const address = createAddressFromString('0x00000000000000000000000000000000000000Aa')
    expect(address.toString()).toBe('0x00000000000000000000000000000000000000aa')
    expect(address.toString()).toBe(bytesToHex(address.bytes))
    expect(`${address}`).toBe('0x00000000000000000000000000000000000000aa')
  })

  test('toBytes copies bytes into a new Uint8Array of their own, also from a Buffer or a view into a larger one', () => {
    const pool = Buffer.from('00aabbccdd00', 'hex')
    const view = pool.subarray(1, 5)
    const copy = toBytes(view)
    expect(copy).toEqual(Uint8Array.of(0xaa, 0xbb, 0xcc, 0xdd))
    expect(Object.getPrototypeOf(copy)).toBe(Uint8Array.prototype)
    expect(copy.buffer.byteLength).toBe(4)
    view[0] = 0
    expect(copy[0]).toBe(0xaa)
    expect(toBytes([1, 2, 255])).toEqual(Uint8Array.of(1, 2, 255))
  })

  test('hexToBytes pads odd lengths and refuses what is not 0x-prefixed hex', () => {
    expect(hexToBytes('0x')).toEqual(new Uint8Array(0))
    expect(bytesToHex(hexToBytes('0xabc'))).toBe('0x0abc')
    expect(bytesToHex(hexToBytes('0xABCD'))).toBe('0xabcd')
    expect(() => hexToBytes('abcd' as `0x${string}`)).toThrow('input string must be 0x prefixed')
    expect(() => hexToBytes('0xzz')).toThrow()
  })
})

describe('@ethereumjs/common', () => {
  test('isActivatedEIP follows hardfork changes and added EIPs', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Shanghai })
    expect(common.isActivatedEIP(3855)).toBe(true)
    expect(common.isActivatedEIP(4844)).toBe(false)
    common.setHardfork(Hardfork.Cancun)
    expect(common.isActivatedEIP(4844)).toBe(true)
    common.setHardfork(Hardfork.London)
    expect(common.isActivatedEIP(3855)).toBe(false)
    expect(common.isActivatedEIP(1559)).toBe(true)
    common.setEIPs([3855])
    expect(common.isActivatedEIP(3855)).toBe(true)
  })

  test('copies share the set of active EIPs, made before the first question', () => {
    type Internals = { _activatedEIPsSet?: Set<number> }
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    const copy = common.copy()
    expect(copy.isActivatedEIP(7702)).toBe(true)
    expect(copy.isActivatedEIP(7825)).toBe(false)
    expect((copy as unknown as Internals)._activatedEIPsSet).toBe((common as unknown as Internals)._activatedEIPsSet)
    // A copy moved to another fork answers for its own fork; the original is not changed.
    copy.setHardfork(Hardfork.London)
    expect(copy.isActivatedEIP(7702)).toBe(false)
    expect(common.isActivatedEIP(7702)).toBe(true)
  })

  test('with a blob schedule (custom hardforks), the hardfork list is built once and stays complete', () => {
    const { common } = parseGethGenesis(devGenesis({ chainId: 1337n, hardfork: 'prague', gasLimit: 30_000_000n, timestamp: 0, alloc: {} }))
    const list = common.hardforks()
    expect(common.hardforks()).toBe(list)
    expect(list.map((hf) => hf.name)).toEqual(expect.arrayContaining(['london', 'cancun', 'prague']))
    expect(common.hardfork()).toBe('prague')
    expect(common.gteHardfork('cancun')).toBe(true)
    expect(common.gteHardfork('osaka')).toBe(false)
  })

  test('gteHardfork follows hardfork changes, and copies answer for their own hardfork', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    expect(common.gteHardfork(Hardfork.London)).toBe(true)
    expect(common.gteHardfork(Hardfork.Prague)).toBe(false)
    expect(common.gteHardfork('nonsense')).toBe(false)
    const copy = common.copy()
    copy.setHardfork(Hardfork.Prague)
    expect(copy.gteHardfork(Hardfork.Prague)).toBe(true)
    expect(common.gteHardfork(Hardfork.Prague)).toBe(false)
    expect(common.hardforkGteHardfork(Hardfork.Osaka, Hardfork.Prague)).toBe(true)
    expect(common.hardforkGteHardfork(Hardfork.Shanghai, Hardfork.Prague)).toBe(false)
  })
})

describe('@ethereumjs/evm', () => {
  // PUSH1 4, JUMP, (INVALID), JUMPDEST, 400 × (PUSH0, POP), STOP. The jump makes the interpreter analyse the code,
  // after which each PUSH0 and POP is a fixed-cost synchronous opcode.
  const code = hexToBytes(`0x600456fe5b${'5f50'.repeat(400)}00`)
  const gasUsed = 3n + 8n + 1n + 400n * (2n + 2n)

  /** Awaits `body` while counting the microtask turns it takes. */
  async function countTurns<T>(body: () => Promise<T>): Promise<{ result: T; turns: number }> {
    let turns = 0
    let done = false
    const tick = () => {
      turns++
      if (!done) queueMicrotask(tick)
    }
    queueMicrotask(tick)
    const result = await body()
    done = true
    return { result, turns }
  }

  /** Runs `code` while counting microtask turns, and collects the pcs the step event reports (with `listen`). */
  async function runCounted(runCode: Uint8Array, options: { listen: boolean; gasLimit?: bigint }) {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const pcs: number[] = []
    if (options.listen) evm.events.on('step', (step: { pc: number }) => void pcs.push(step.pc))
    const { result, turns } = await countTurns(() => evm.runCode({ code: runCode, gasLimit: options.gasLimit ?? 100_000n }))
    return { result, turns, pcs }
  }
  const run = (options: { listen: boolean }) => runCounted(code, options)

  test('fixed-cost opcodes run inline, without a microtask turn each', async () => {
    const { result, turns } = await run({ listen: false })
    expect(result.exceptionError).toBeUndefined()
    expect(result.executionGasUsed).toBe(gasUsed)
    // 805 opcodes: awaited one by one they would take at least as many turns.
    expect(turns).toBeLessThan(100)
  })

  test('with a step listener every opcode is still stepped and reported', async () => {
    const { result, pcs } = await run({ listen: true })
    expect(result.executionGasUsed).toBe(gasUsed)
    expect(pcs).toHaveLength(3 + 800 + 1)
    expect(pcs.slice(0, 5)).toEqual([0, 2, 4, 5, 6])
  })

  test('code that never jumps runs inline from its first opcode, with the opcodes marked async that do not wait', async () => {
    // CALLER, CALLDATASIZE, ADDRESS, TIMESTAMP, NUMBER, CALLVALUE (each popped), 400 × (PUSH0, POP), STOP; no jump,
    // so the analysis is made before the first opcode. ethereumjs marks the six async; their handlers are plain.
    const straight = hexToBytes(`0x335036503050425043503450${'5f50'.repeat(400)}00`)
    const inline = await runCounted(straight, { listen: false })
    const stepped = await runCounted(straight, { listen: true })
    expect(inline.result.exceptionError).toBeUndefined()
    expect(inline.result.executionGasUsed).toBe(6n * 2n + 6n * 2n + 400n * 4n)
    expect(stepped.result.executionGasUsed).toBe(inline.result.executionGasUsed)
    expect(stepped.pcs).toHaveLength(12 + 800 + 1)
    // 4 turns in all, what runCode itself awaits. Stepping only the six took 16; stepping all, over 800.
    expect(inline.turns).toBeLessThan(10)
  })

  test('every frame gets its own zeroed memory, beyond the frames one shared block holds', async () => {
    // Reads the word at 992 (the last of the first kilobyte), then fills it with 0xff bytes and returns what it
    // read. Frames whose memory overlapped would read a previous frame's 0xff bytes.
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const probe = hexToBytes(`0x6103e051${`7f${'ff'.repeat(32)}`}6103e0525f5260205ff3`)
    for (let frame = 0; frame < 140; frame++) {
      const result = await evm.runCode({ code: probe, gasLimit: 100_000n })
      expect(result.exceptionError).toBeUndefined()
      expect(bytesToHex(result.returnValue)).toBe(`0x${'00'.repeat(32)}`)
    }
  })

  test('always-warm addresses and slots are kept without their 0x prefix, whichever form they come in', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const address = hexToBytes('0x00000000000000000000000000000000000000aa')
    evm.journal.addAlwaysWarmAddress('0x00000000000000000000000000000000000000aa')
    evm.journal.addAlwaysWarmSlot('00000000000000000000000000000000000000bb', `0x${'00'.repeat(31)}01`)
    expect(evm.journal.isWarmedAddress(address)).toBe(true)
    expect(evm.journal.isWarmedStorage(hexToBytes('0x00000000000000000000000000000000000000bb'), hexToBytes(`0x${'00'.repeat(31)}01`))).toBe(true)
    expect(evm.journal.isWarmedStorage(address, hexToBytes(`0x${'00'.repeat(31)}01`))).toBe(false)
  })

  test('a slot warmed for one always-warm address is warm for that address alone, in this transaction alone', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const [a, b, c] = ['aa', 'bb', 'cc'].map((last) => `0x${'00'.repeat(19)}${last}`)
    const slot = `0x${'00'.repeat(31)}07`
    const warmSlot = (address: string) => evm.journal.isWarmedStorage(hexToBytes(address as Hex), hexToBytes(slot as Hex))
    // Warmed without slots first, as runTx warms the precompiles, then one of them gets a slot.
    for (const address of [a, b, c]) evm.journal.addAlwaysWarmAddress(address!)
    evm.journal.addAlwaysWarmSlot(b!, slot)
    expect([a, b, c].map(warmSlot)).toEqual([false, true, false])
    evm.journal.addAlwaysWarmSlot(b!, `0x${'00'.repeat(31)}08`)
    evm.journal.addAlwaysWarmAddress(b!)
    expect(warmSlot(b!)).toBe(true)
    // The next transaction starts with none of them.
    evm.journal.cleanJournal()
    evm.journal.addAlwaysWarmAddress(b!)
    expect(evm.journal.isWarmedAddress(hexToBytes(b as Hex))).toBe(true)
    expect(warmSlot(b!)).toBe(false)
    expect(evm.journal.isWarmedAddress(hexToBytes(a as Hex))).toBe(false)
    // Addresses shared by every transaction (a fork's precompiles) are warm while the set is in place, without slots.
    evm.journal.sharedWarmAddresses = new Set([a!.slice(2)])
    expect(evm.journal.isWarmedAddress(hexToBytes(a as Hex))).toBe(true)
    expect(warmSlot(a!)).toBe(false)
    evm.journal.sharedWarmAddresses = new Set()
    expect(evm.journal.isWarmedAddress(hexToBytes(a as Hex))).toBe(false)
  })

  // PUSH1 5, JUMP, (INVALID ×2), JUMPDEST; 40 × MSTORE of a word at offsets 0, 32, … (memory grows each time);
  // KECCAK256 of the first 64 bytes, MSTORE it at 0, MLOAD and POP; LOG1 of the first word under topic 7; RETURN it.
  const stores = Array.from({ length: 40 }, (_, i) => `60${(i + 1).toString(16).padStart(2, '0')}61${(i * 32).toString(16).padStart(4, '0')}52`)
  const memoryCode = hexToBytes(`0x600556fefe5b${stores.join('')}604060002060005260205150600760206000a160206000f3`)

  const runMemoryCode = (options: { listen: boolean; gasLimit: bigint }) => runCounted(memoryCode, options)

  test('memory, hashing, logging and returning opcodes are charged inline, exactly as when stepped', async () => {
    const inline = await runMemoryCode({ listen: false, gasLimit: 100_000n })
    const stepped = await runMemoryCode({ listen: true, gasLimit: 100_000n })
    expect(inline.result.exceptionError).toBeUndefined()
    expect(inline.result.executionGasUsed).toBe(stepped.result.executionGasUsed)
    expect(bytesToHex(inline.result.returnValue)).toBe(bytesToHex(stepped.result.returnValue))
    expect(inline.result.logs).toEqual(stepped.result.logs)
    expect(inline.result.logs).toHaveLength(1)
    // 138 opcodes, 45 of them with a dynamic charge: stepped, every opcode took a turn or more.
    expect(inline.turns).toBeLessThan(20)
    expect(stepped.turns).toBeGreaterThan(138)
    // Out of gas while growing memory: the same halt, all gas gone, either way.
    const short = await runMemoryCode({ listen: false, gasLimit: 500n })
    expect(short.result.exceptionError?.error).toBe('out of gas')
    expect(short.result.executionGasUsed).toBe(500n)
    expect((await runMemoryCode({ listen: true, gasLimit: 500n })).result.exceptionError?.error).toBe('out of gas')
  })

  test('MSTORE writes each word as 32 big-endian bytes, at any offset, over what was there', async () => {
    const words = [0n, 1n, 0xffn, 0xabcn, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n + 5n, 2n ** 160n - 1n, 0xfn << 200n, 2n ** 255n, 2n ** 256n - 1n]
    const push32 = (value: bigint) => `7f${value.toString(16).padStart(64, '0')}`
    const push2 = (value: number) => `61${value.toString(16).padStart(4, '0')}`
    const size = 32 * words.length + 37
    const expected = new Uint8Array(size)
    let body = ''
    words.forEach((word, i) => {
      // Each word lands 5 bytes past a word boundary, over a word of 0xff bytes stored first.
      const offset = 32 * i + 5
      body += `${push32(2n ** 256n - 1n)}${push2(offset)}52${push32(word)}${push2(offset)}52`
      expected.set(hexToBytes(`0x${word.toString(16).padStart(64, '0')}`), offset)
    })
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const result = await evm.runCode({ code: hexToBytes(`0x${body}${push2(size)}${push2(0)}f3`), gasLimit: 1_000_000n })
    expect(result.exceptionError).toBeUndefined()
    expect(bytesToHex(result.returnValue)).toBe(bytesToHex(expected))
  })

  test('SLOAD and SSTORE of two slots in turn read back what was stored, charged cold once and warm after', async () => {
    // SSTORE(1, 0xaa), SSTORE(2, 0xbb), MSTORE(0, SLOAD(1)), MSTORE(32, SLOAD(2)), RETURN(0, 64).
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    await evm.stateManager.putAccount(createZeroAddress(), new Account())
    const result = await evm.runCode({ code: hexToBytes('0x60aa60015560bb60025560015460005260025460205260406000f3'), gasLimit: 100_000n })
    expect(result.exceptionError).toBeUndefined()
    expect(bytesToHex(result.returnValue)).toBe(`0x${'00'.repeat(31)}aa${'00'.repeat(31)}bb`)
    // Two cold stores of a new value (2100 + 20000 each), two warm loads (100 each), 3 for each of the 10 pushes and
    // 2 MSTOREs, 6 for the 2 words of memory.
    expect(result.executionGasUsed).toBe(2n * 22_100n + 2n * 100n + 12n * 3n + 6n)
  })

  test('on a state that never waits, SLOAD and SSTORE run inline and charge, refund and store as on one that does', async () => {
    // The contract's slots 1 = 0x11 and 2 = 0x22. SLOAD 1 cold then warm; SSTORE 3: 0 → 0x33 → 0x34 → 0 (created,
    // changed, reset: refunded); SSTORE 1 = 0x11 (no-op); SSTORE 2: 0x22 → 0 → 0x22 (cleared, then restored);
    // then RETURN the three slots.
    const program = [
      '60015450',
      '60015450', // SLOAD 1, POP; twice
      '6033600355',
      '6034600355',
      '5f600355', // SSTORE 3: 0x33, 0x34, 0
      '6011600155', // SSTORE 1: 0x11
      '5f600255',
      '6022600255', // SSTORE 2: 0, 0x22
      '6001545f52',
      '600254602052',
      '600354604052',
      '60605ff3', // MSTORE the three slots, RETURN them
    ]
    const code = hexToBytes(`0x${program.join('')}`)
    const contract = createAddressFromString('0x00000000000000000000000000000000000000c0')
    const word = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)
    const common = () => new Common({ chain: Mainnet, hardfork: Hardfork.Prague })

    const waiting = await createEVM({ common: common() })
    await waiting.stateManager.putAccount(contract, new Account())
    await waiting.stateManager.putStorage(contract, word(1), hexToBytes('0x11'))
    await waiting.stateManager.putStorage(contract, word(2), hexToBytes('0x22'))

    const diff = createStateDiff()
    diff.accounts.set(contract.toString(), { nonce: 0n, balance: 0n, codeHash: new Account().codeHash, storageRoot: new Account().storageRoot })
    diff.storage.set(contract.toString(), {
      cleared: false,
      slots: new Map<Hex, Uint8Array>([
        [bytesToHex(word(1)) as Hex, hexToBytes('0x11')],
        [bytesToHex(word(2)) as Hex, hexToBytes('0x22')],
      ]),
    })
    const nothing: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }
    const flat = new FlatStateManager(createOverlay(diff, nothing))
    const immediate = await createEVM({ common: common(), stateManager: flat })

    const run = (evm: typeof waiting) => countTurns(() => evm.runCode({ code, gasLimit: 200_000n, to: contract }))
    const awaited = await run(waiting)
    const inline = await run(immediate)
    expect(awaited.result.exceptionError).toBeUndefined()
    expect(bytesToHex(awaited.result.returnValue)).toBe(`0x${'00'.repeat(31)}11${'00'.repeat(31)}22${'00'.repeat(32)}`)
    expect(awaited.result.gasRefund).toBeGreaterThan(0n)
    expect(inline.result.exceptionError).toBeUndefined()
    expect(bytesToHex(inline.result.returnValue)).toBe(bytesToHex(awaited.result.returnValue))
    expect(inline.result.executionGasUsed).toBe(awaited.result.executionGasUsed)
    expect(inline.result.gasRefund).toBe(awaited.result.gasRefund)
    for (const n of [1, 2, 3]) {
      expect(bytesToHex(await flat.getStorage(contract, word(n)))).toBe(bytesToHex(await waiting.stateManager.getStorage(contract, word(n))))
    }
    // 14 storage opcodes: awaited, each takes turns of its own.
    expect(awaited.turns).toBeGreaterThan(28)
    expect(inline.turns).toBeLessThan(10)
  })

  test('KECCAK256 hashes what memory holds, also when a frame hashes the same 64 bytes again', async () => {
    // Word 0 stays 1; word 1 takes 2, 2, 3, 2, 4, 3 before each hash of the 64 bytes: inputs A, A, B, A, C, B (a
    // frame keeps its last two inputs, so C evicts A and B is still kept). Then the first 32 bytes and nothing.
    // Each hash is stored from 0x100 on, and all eight are returned.
    const push = (value: number) => `61${value.toString(16).padStart(4, '0')}`
    const store = (offset: number, value: number) => `${push(value)}${push(offset)}52`
    const hashTo = (length: number, slot: number) => `${push(length)}${push(0)}20${push(0x100 + 32 * slot)}52`
    const program = [store(0, 1)]
    for (const [slot, second] of [2, 2, 3, 2, 4, 3].entries()) program.push(store(32, second), hashTo(64, slot))
    program.push(hashTo(32, 6), hashTo(0, 7), `${push(256)}${push(0x100)}f3`)
    const code = hexToBytes(`0x${program.join('')}`)
    const input = (second: number) => hexToBytes(`0x${'00'.repeat(31)}01${second.toString(16).padStart(64, '0')}`)
    const expected = (hash: (data: Uint8Array) => Uint8Array) =>
      `0x${[2, 2, 3, 2, 4, 3].map((second) => nobleBytesToHex(hash(input(second)))).join('')}` +
      `${nobleBytesToHex(hash(input(2).subarray(0, 32)))}${nobleBytesToHex(hash(new Uint8Array(0)))}`

    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const result = await evm.runCode({ code, gasLimit: 100_000n })
    expect(result.exceptionError).toBeUndefined()
    expect(bytesToHex(result.returnValue)).toBe(expected(keccak_256))
    // An EVM given another hash function (customCrypto) hashes with it, kept inputs included.
    const other = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague, customCrypto: { keccak256: sha3_256 } }) })
    expect(bytesToHex((await other.runCode({ code, gasLimit: 100_000n })).returnValue)).toBe(expected(sha3_256))
  })

  test('STOP, RETURN and REVERT end their frame inline as their handlers do when stepped, also in nested calls', async () => {
    const children = {
      // MSTORE 0x2a at 0, then RETURN or REVERT the word; STOP; RETURN of nothing.
      returns: '0x602a5f5260205ff3',
      reverts: '0x602a5f5260205ffd',
      stops: '0x602a5f5200',
      returnsNothing: '0x5f5ff3',
    } satisfies Record<string, Hex>
    const parent = createAddressFromString(`0x${'00'.repeat(19)}99`)
    const runs = async (listen: boolean) => {
      const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
      if (listen) evm.events.on('step', () => {})
      const answers = []
      for (const [i, child] of Object.values(children).entries()) {
        const address = createAddressFromString(`0x${'00'.repeat(18)}c${i}00`)
        await evm.stateManager.putAccount(address, new Account())
        await evm.stateManager.putCode(address, hexToBytes(child))
        // CALL the child with all gas; return the success flag, then what the child returned or reverted with.
        const calls = `0x5f5f5f5f5f73${address.toString().slice(2)}5af15f523d5f60203e3d6020015ff3` as Hex
        await evm.stateManager.putAccount(parent, new Account())
        await evm.stateManager.putCode(parent, hexToBytes(calls))
        const nested = await evm.runCall({ to: parent, gasLimit: 100_000n })
        const direct = await evm.runCode({ code: hexToBytes(child), gasLimit: 100_000n })
        answers.push(
          [nested.execResult, direct].map((result) => ({
            returnValue: bytesToHex(result.returnValue),
            executionGasUsed: result.executionGasUsed,
            error: result.exceptionError?.error,
          })),
        )
      }
      return answers
    }
    const inline = await runs(false)
    expect(inline).toEqual(await runs(true))
    const word = `${'00'.repeat(31)}2a`
    expect(inline.map(([nested]) => nested!.returnValue)).toEqual([
      `0x${'00'.repeat(31)}01${word}`,
      `0x${'00'.repeat(32)}${word}`,
      `0x${'00'.repeat(31)}01`,
      `0x${'00'.repeat(31)}01`,
    ])
    expect(inline.map(([, direct]) => [direct!.returnValue, direct!.error])).toEqual([
      [`0x${word}`, undefined],
      [`0x${word}`, 'revert'],
      ['0x', undefined],
      ['0x', undefined],
    ])
  })

  test('a custom RETURN runs its own handler, inline', async () => {
    const evm = await createEVM({
      common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }),
      customOpcodes: [{ opcode: 0xf3, opcodeName: 'RETURN', baseFee: 1, logicFunction: (runState) => runState.interpreter.finish(Uint8Array.of(7)) }],
    })
    const result = await evm.runCode({ code: hexToBytes('0x5f5ff3'), gasLimit: 100_000n })
    expect(bytesToHex(result.returnValue)).toBe('0x07')
    expect(result.executionGasUsed).toBe(2n + 2n + 1n)
  })

  test('a fixed-cost opcode that runs out of gas halts as before', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
    const result = await evm.runCode({ code, gasLimit: 1000n })
    expect(result.exceptionError?.error).toBe('out of gas')
    expect(result.executionGasUsed).toBe(1000n)
  })
})

describe('@ethereumjs/tx', () => {
  test('calldata is priced per zero and non-zero byte, as EIP-2028 and EIP-7623 count them', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    const data = Uint8Array.from({ length: 101 }, (_, i) => (i % 3 === 0 ? 0 : i))
    const zeros = 34n
    const tx = createFeeMarket1559Tx({ to: '0x00000000000000000000000000000000000000aa', data, gasLimit: 100_000n }, { common })
    expect(tx.getDataGas()).toBe(zeros * 4n + (101n - zeros) * 16n)
    expect(countCalldataFloorTokens(tx)).toBe(zeros + (101n - zeros) * 4n)
    const empty = createFeeMarket1559Tx({ to: '0x00000000000000000000000000000000000000aa', gasLimit: 100_000n }, { common })
    expect(empty.getDataGas()).toBe(0n)
    expect(countCalldataFloorTokens(empty)).toBe(0n)
  })

  test('a transaction refuses array fields and values beyond their bounds, naming the field', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    const to = '0x00000000000000000000000000000000000000aa'
    const create = (fields: Record<string, unknown>) => createFeeMarket1559Tx({ to, gasLimit: 100_000n, ...fields }, { common })
    expect(() => create({ value: [1] })).toThrow('value cannot be an array')
    expect(() => create({ nonce: [] })).toThrow('nonce cannot be an array')
    expect(() => create({ value: 2n ** 256n })).toThrow('value cannot exceed MAX_INTEGER')
    expect(() => create({ gasLimit: 2n ** 64n })).toThrow('gasLimit cannot exceed MAX_UINT64')
    expect(() => create({ nonce: 2n ** 64n - 1n })).toThrow('nonce cannot equal or exceed MAX_UINT64')
    expect(() => create({ maxFeePerGas: 2n ** 256n })).toThrow('maxFeePerGas cannot exceed MAX_INTEGER')
    // At the bounds themselves, and with a field that is not checked for arrays (accessList is one).
    expect(create({ value: 2n ** 256n - 1n, nonce: 2n ** 64n - 2n, accessList: [] }).nonce).toBe(2n ** 64n - 2n)
  })
  test('numbers given as bigints, integers, hex or bytes make the same transaction; negative ones are refused', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    const to = '0x00000000000000000000000000000000000000aa'
    const fields = { nonce: 7n, gasLimit: 100_000n, value: 10n ** 18n, maxFeePerGas: 3n, maxPriorityFeePerGas: 2n, chainId: 1n }
    const asBigInts = createFeeMarket1559Tx({ to, ...fields }, { common })
    const convert = (to: (value: bigint) => unknown) => Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, to(value)]))
    const asHex = createFeeMarket1559Tx({ to, ...convert((value) => `0x${value.toString(16)}`) }, { common })
    const asBytes = createFeeMarket1559Tx({ to, ...convert(bigIntToBytes) }, { common })
    const asIntegers = createFeeMarket1559Tx(
      { to, nonce: 7, gasLimit: 100_000, value: 10n ** 18n, maxFeePerGas: 3, maxPriorityFeePerGas: 2, chainId: 1 },
      { common },
    )
    for (const tx of [asHex, asBytes, asIntegers]) {
      expect(tx.toJSON()).toEqual(asBigInts.toJSON())
      expect(tx.getMessageToSign()).toEqual(asBigInts.getMessageToSign())
    }
    expect(asBigInts.toJSON()).toMatchObject({ nonce: '0x7', gasLimit: '0x186a0', value: '0xde0b6b3a7640000', maxFeePerGas: '0x3', chainId: '0x1' })
    expect(typeof asBigInts.nonce).toBe('bigint')
    expect(() => createFeeMarket1559Tx({ to, ...fields, value: -1n }, { common })).toThrow('Cannot convert negative bigint to Uint8Array')
    expect(() => createFeeMarket1559Tx({ to, ...fields, nonce: -1 }, { common })).toThrow()
    expect(() => createFeeMarket1559Tx({ to, ...fields, chainId: 5n }, { common })).toThrow('not matching the derived chain ID')
  })

  test('an unsigned transaction has no v, r or s; a signed one keeps them, and `to` is one Address', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    const to = '0x00000000000000000000000000000000000000aa'
    const unsigned = createFeeMarket1559Tx({ to, gasLimit: 21_000n, maxFeePerGas: 1n }, { common })
    expect([unsigned.v, unsigned.r, unsigned.s]).toEqual([undefined, undefined, undefined])
    expect(unsigned.isSigned()).toBe(false)
    expect(unsigned.to?.toString()).toBe(to)
    const signed = unsigned.sign(hexToBytes(`0x${'11'.repeat(32)}`))
    // As a transaction decoded from the wire is built: the signature given as bytes.
    const [v, r, s] = [signed.v!, signed.r!, signed.s!].map((value) => bigIntToBytes(value))
    const copy = createFeeMarket1559Tx({ to, gasLimit: 21_000n, maxFeePerGas: 1n, v, r, s }, { common })
    expect([copy.v, copy.r, copy.s]).toEqual([signed.v, signed.r, signed.s])
    expect(copy.isSigned()).toBe(true)
    expect(copy.getSenderAddress()).toEqual(signed.getSenderAddress())
    const empty = createFeeMarket1559Tx({ to, gasLimit: 21_000n, v: '0x', r: new Uint8Array(), s: null } as never, { common })
    expect([empty.v, empty.r, empty.s]).toEqual([undefined, undefined, undefined])
  })
})

describe('unpatchedPackages', () => {
  test('finds the patches in the build this process loads: every one, or none on the published build', () => {
    expect(unpatchedPackages()).toEqual(expectsPublishedBuild() ? PATCHED_PACKAGES : [])
  })
})
