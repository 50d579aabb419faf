import { readFileSync } from 'node:fs'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM, type EVM, type EVMResult } from '@ethereumjs/evm'
import { bytesToBigInt, bytesToHex, concatBytes, createAccount, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import {
  decodeErrorResult,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  parseAbi,
  parseAbiParameters,
  type Hex,
} from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACT_PATH, compileBatchExecutor, compileSolidity, type AbiItem, type Artifact } from './compile.ts'

const artifact = JSON.parse(readFileSync(ARTIFACT_PATH, 'utf8')) as Artifact

const MODE_BATCH: Hex = '0x0100000000000000000000000000000000000000000000000000000000000000'
const MODE_BATCH_OPDATA: Hex = '0x0100000000007821000100000000000000000000000000000000000000000000'

const executorAbi = parseAbi([
  'function execute(bytes32 mode, bytes executionData) payable',
  'function supportsExecutionMode(bytes32 mode) pure returns (bool)',
  'error Unauthorized()',
  'error UnsupportedExecutionMode()',
  'error InvalidOpData()',
  'error InsufficientGasForCall(uint256 index, uint256 gasLimit)',
  'receive() external payable',
])

const TARGET_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;
contract Target {
    error Boom(uint256 code, string why);
    uint256 public stored;     // slot 0
    uint256 public gasAtEntry; // slot 1
    address public lastSender; // slot 2
    uint256 public lastValue;  // slot 3
    function store(uint256 v) external payable { stored = v; lastSender = msg.sender; lastValue = msg.value; }
    function recordGas() external { gasAtEntry = gasleft(); }
    function boom() external pure { revert Boom(42, "nope"); }
}
`
const targetAbi = parseAbi([
  'error Boom(uint256 code, string why)',
  'function store(uint256 v) payable',
  'function recordGas()',
  'function boom() pure',
])
const SLOT = { stored: 0n, gasAtEntry: 1n, lastSender: 2n, lastValue: 3n } as const

// The EOA that delegates (EIP-7702) to the executor, the executor's own address, two targets,
// an outsider, and an untouched account to receive plain ETH.
const EOA: Hex = `0x${'aa'.repeat(20)}`
const EXECUTOR: Hex = `0x${'e0'.repeat(20)}`
const T1: Hex = `0x${'71'.repeat(20)}`
const T2: Hex = `0x${'72'.repeat(20)}`
const OUTSIDER: Hex = `0x${'0b'.repeat(20)}`
const PAYEE: Hex = `0x${'99'.repeat(20)}`
const FRESH: Hex = `0x${'9a'.repeat(20)}`
// An EOA delegating by EIP-7702 to a Target at DELEGATE.
const DELEGATED: Hex = `0x${'d1'.repeat(20)}`
const DELEGATE: Hex = `0x${'d2'.repeat(20)}`
const ZERO: Hex = `0x${'00'.repeat(20)}`
const EOA_FUNDS = 10n ** 19n

type Call = { to: Hex; value: bigint; data: Hex }
const callsParams = parseAbiParameters('(address to, uint256 value, bytes data)[]')

function executeData(mode: Hex, calls: Call[], opData?: Hex): Hex {
  const executionData =
    opData === undefined ? encodeAbiParameters(callsParams, [calls]) : encodeAbiParameters([...callsParams, { type: 'bytes' }], [calls, opData])
  return encodeFunctionData({ abi: executorAbi, functionName: 'execute', args: [mode, executionData] })
}
const gasLimitsOpData = (limits: bigint[]): Hex => encodeAbiParameters(parseAbiParameters('uint256[]'), [limits])
const store = (v: bigint): Hex => encodeFunctionData({ abi: targetAbi, functionName: 'store', args: [v] })
const recordGas: Hex = encodeFunctionData({ abi: targetAbi, functionName: 'recordGas' })
const boom: Hex = encodeFunctionData({ abi: targetAbi, functionName: 'boom' })
function executorError(errorName: 'Unauthorized' | 'UnsupportedExecutionMode' | 'InvalidOpData'): Hex
function executorError(errorName: 'InsufficientGasForCall', args: [bigint, bigint]): Hex
function executorError(errorName: string, args?: [bigint, bigint]): Hex {
  return args === undefined
    ? encodeErrorResult({ abi: executorAbi, errorName: errorName as 'Unauthorized' })
    : encodeErrorResult({ abi: executorAbi, errorName: 'InsufficientGasForCall', args })
}

let targetCode: Uint8Array
beforeAll(() => {
  targetCode = hexToBytes(compileSolidity('Target.sol', TARGET_SOURCE, 'Target').deployedBytecode)
})

describe('BatchExecutor artifact', () => {
  it('shipped bytecode compiles from the source', () => {
    const fresh = compileBatchExecutor()
    expect(fresh.deployedBytecode).toBe(artifact.deployedBytecode)
    expect(fresh.abi).toEqual(artifact.abi)
    expect(fresh).toEqual(artifact)
  })

  it('has exactly the ERC-7821 interface, its errors and receive()', () => {
    // Compare with the human-readable ABI the tests encode against, ignoring solc's internalType
    // and its empty output names.
    const normalize = (abi: readonly unknown[]) =>
      (JSON.parse(JSON.stringify(abi, (k, v: unknown) => (k === 'internalType' || (k === 'name' && v === '') ? undefined : v))) as AbiItem[]).sort(
        (a, b) => `${a.type} ${a.name ?? ''}`.localeCompare(`${b.type} ${b.name ?? ''}`),
      )
    expect(normalize(artifact.abi)).toEqual(normalize(executorAbi))
    expect(artifact.abi).toHaveLength(7)
    expect(artifact.compiler.settings.evmVersion).toBe('prague')
    // EIP-170 code size limit, with room to spare.
    expect((artifact.deployedBytecode.length - 2) / 2).toBeLessThan(24_576)
  })
})

type Setup = { name: string; hardfork: Hardfork; delegated: boolean }
const setups: Setup[] = [
  { name: 'prague, EOA delegated by EIP-7702', hardfork: Hardfork.Prague, delegated: true },
  { name: 'osaka, EOA delegated by EIP-7702', hardfork: Hardfork.Osaka, delegated: true },
  { name: 'osaka, executor code placed at the EOA', hardfork: Hardfork.Osaka, delegated: false },
]

describe.each(setups)('BatchExecutor in the EVM ($name)', ({ hardfork, delegated }) => {
  const addr = (a: Hex) => createAddressFromString(a)

  async function makeEvm(): Promise<EVM> {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork }) })
    const sm = evm.stateManager
    const executorCode = hexToBytes(artifact.deployedBytecode)
    await sm.putAccount(addr(EOA), createAccount({ balance: EOA_FUNDS }))
    if (delegated) {
      await sm.putAccount(addr(EXECUTOR), createAccount({}))
      await sm.putCode(addr(EXECUTOR), executorCode)
      // EIP-7702 delegation designator: 0xef0100 || address.
      await sm.putCode(addr(EOA), concatBytes(hexToBytes('0xef0100'), hexToBytes(EXECUTOR)))
    } else {
      await sm.putCode(addr(EOA), executorCode)
    }
    for (const t of [T1, T2]) {
      await sm.putAccount(addr(t), createAccount({}))
      await sm.putCode(addr(t), targetCode)
    }
    await sm.putAccount(addr(OUTSIDER), createAccount({ balance: EOA_FUNDS }))
    await sm.putAccount(addr(DELEGATE), createAccount({}))
    await sm.putCode(addr(DELEGATE), targetCode)
    await sm.putAccount(addr(DELEGATED), createAccount({}))
    await sm.putCode(addr(DELEGATED), concatBytes(hexToBytes('0xef0100'), hexToBytes(DELEGATE)))
    return evm
  }

  async function run(evm: EVM, data: Hex, opts: { caller?: Hex; gasLimit?: bigint; value?: bigint; undo?: boolean } = {}): Promise<EVMResult> {
    const caller = opts.caller ?? EOA
    if (opts.undo === true) await evm.journal.checkpoint()
    const result = await evm.runCall({
      caller: addr(caller),
      origin: addr(caller),
      to: addr(EOA),
      data: hexToBytes(data),
      gasLimit: opts.gasLimit ?? 2_000_000n,
      value: opts.value ?? 0n,
    })
    if (opts.undo === true) await evm.journal.revert()
    // runCall alone keeps the EIP-2929 warm set; clear it so every run starts like a new tx.
    await evm.journal.cleanup()
    return result
  }

  const slot = async (evm: EVM, a: Hex, s: bigint) =>
    bytesToBigInt(await evm.stateManager.getStorage(addr(a), setLengthLeft(hexToBytes(`0x${s.toString(16).padStart(2, '0')}`), 32)))
  const balance = async (evm: EVM, a: Hex) => (await evm.stateManager.getAccount(addr(a)))?.balance ?? 0n
  const returned = (r: EVMResult): Hex => bytesToHex(r.execResult.returnValue)
  const failure = (r: EVMResult) => r.execResult.exceptionError?.error

  /** Gas limits the EVM gave to the frames entering `target` during `fn`. */
  async function gasGivenTo(evm: EVM, target: Hex, fn: () => Promise<EVMResult>): Promise<{ result: EVMResult; gas: bigint[] }> {
    const gas: bigint[] = []
    const listener = (m: { to?: { toString(): string }; depth: number; gasLimit: bigint }) => {
      if (m.depth > 0 && m.to?.toString() === target) gas.push(m.gasLimit)
    }
    evm.events!.on('beforeMessage', listener)
    try {
      return { result: await fn(), gas }
    } finally {
      evm.events!.off('beforeMessage', listener)
    }
  }

  it('supportsExecutionMode is true only for the two ERC-7821 batch modes', async () => {
    const evm = await makeEvm()
    const supports = async (mode: Hex) => {
      const r = await run(evm, encodeFunctionData({ abi: executorAbi, functionName: 'supportsExecutionMode', args: [mode] }), { caller: OUTSIDER })
      expect(failure(r)).toBeUndefined()
      return decodeFunctionResult({ abi: executorAbi, functionName: 'supportsExecutionMode', data: returned(r) })
    }
    expect(await supports(MODE_BATCH)).toBe(true)
    expect(await supports(MODE_BATCH_OPDATA)).toBe(true)
    // Like ERC-7821's reference code, the 4 reserved bytes and the 22-byte payload are ignored.
    expect(await supports('0x01001234567800000000ffffffffffffffffffffffffffffffffffffffffffff')).toBe(true)
    expect(await supports('0x0100000000007821000100000000000000000000000000000000000000000001')).toBe(true)
    // ERC-7821 batch of batches, ERC-7579 single call, try mode, delegatecall, other selectors.
    expect(await supports('0x0100000000007821000200000000000000000000000000000000000000000000')).toBe(false)
    expect(await supports('0x0000000000000000000000000000000000000000000000000000000000000000')).toBe(false)
    expect(await supports('0x0101000000000000000000000000000000000000000000000000000000000000')).toBe(false)
    expect(await supports('0x0101000000007821000100000000000000000000000000000000000000000000')).toBe(false)
    expect(await supports('0xff00000000000000000000000000000000000000000000000000000000000000')).toBe(false)
    expect(await supports('0x0100000000007821000000000000000000000000000000000000000000000000')).toBe(false)
    expect(await supports('0x0100000000000000000100000000000000000000000000000000000000000000')).toBe(false)
  })

  it('a 2-call batch applies both effects, with the EOA as msg.sender', async () => {
    const evm = await makeEvm()
    const r = await run(
      evm,
      executeData(MODE_BATCH, [
        { to: T1, value: 0n, data: store(11n) },
        { to: T2, value: 0n, data: store(22n) },
      ]),
    )
    expect(failure(r)).toBeUndefined()
    expect(returned(r)).toBe('0x')
    expect(await slot(evm, T1, SLOT.stored)).toBe(11n)
    expect(await slot(evm, T2, SLOT.stored)).toBe(22n)
    expect(await slot(evm, T1, SLOT.lastSender)).toBe(BigInt(EOA))
    expect(await slot(evm, T2, SLOT.lastSender)).toBe(BigInt(EOA))
  })

  it('the opData mode accepts abi.encode(calls), empty opData and gas limits of 0', async () => {
    const evm = await makeEvm()
    const batch = (v: bigint): Call[] => [
      { to: T1, value: 0n, data: store(v) },
      { to: T2, value: 0n, data: store(v + 1n) },
    ]
    expect(failure(await run(evm, executeData(MODE_BATCH_OPDATA, batch(1n))))).toBeUndefined()
    expect(await slot(evm, T1, SLOT.stored)).toBe(1n)
    expect(await slot(evm, T2, SLOT.stored)).toBe(2n)
    expect(failure(await run(evm, executeData(MODE_BATCH_OPDATA, batch(3n), '0x')))).toBeUndefined()
    expect(await slot(evm, T1, SLOT.stored)).toBe(3n)
    expect(await slot(evm, T2, SLOT.stored)).toBe(4n)
    expect(failure(await run(evm, executeData(MODE_BATCH_OPDATA, batch(5n), gasLimitsOpData([0n, 0n]))))).toBeUndefined()
    expect(await slot(evm, T1, SLOT.stored)).toBe(5n)
    expect(await slot(evm, T2, SLOT.stored)).toBe(6n)
    // An empty batch is a no-op that succeeds.
    expect(failure(await run(evm, executeData(MODE_BATCH, [])))).toBeUndefined()
  })

  it('a caller other than the EOA gets Unauthorized()', async () => {
    const evm = await makeEvm()
    const r = await run(evm, executeData(MODE_BATCH, [{ to: T1, value: 0n, data: store(1n) }]), { caller: OUTSIDER })
    expect(failure(r)).toBe('revert')
    expect(returned(r)).toBe(executorError('Unauthorized'))
    expect(decodeErrorResult({ abi: executorAbi, data: returned(r) }).errorName).toBe('Unauthorized')
    expect(await slot(evm, T1, SLOT.stored)).toBe(0n)
  })

  it('an unsupported mode reverts with UnsupportedExecutionMode()', async () => {
    const evm = await makeEvm()
    const r = await run(
      evm,
      executeData('0x0100000000007821000200000000000000000000000000000000000000000000', [{ to: T1, value: 0n, data: store(1n) }]),
    )
    expect(failure(r)).toBe('revert')
    expect(returned(r)).toBe(executorError('UnsupportedExecutionMode'))
    expect(await slot(evm, T1, SLOT.stored)).toBe(0n)
  })

  it('a reverting call reverts the whole batch and bubbles its exact revert data', async () => {
    const evm = await makeEvm()
    const r = await run(
      evm,
      executeData(MODE_BATCH, [
        { to: T1, value: 0n, data: store(7n) },
        { to: T2, value: 0n, data: boom },
      ]),
    )
    expect(failure(r)).toBe('revert')
    expect(returned(r)).toBe(encodeErrorResult({ abi: targetAbi, errorName: 'Boom', args: [42n, 'nope'] }))
    expect(decodeErrorResult({ abi: targetAbi, data: returned(r) })).toEqual({ abiItem: targetAbi[0], errorName: 'Boom', args: [42n, 'nope'] })
    expect(await slot(evm, T1, SLOT.stored)).toBe(0n)
    expect(await slot(evm, T1, SLOT.lastSender)).toBe(0n)
  })

  it('forwards value, to contracts and to plain accounts', async () => {
    const evm = await makeEvm()
    const r = await run(
      evm,
      executeData(MODE_BATCH, [
        { to: T1, value: 10n ** 18n, data: store(1n) },
        { to: PAYEE, value: 5n, data: '0x' },
      ]),
    )
    expect(failure(r)).toBeUndefined()
    expect(await balance(evm, T1)).toBe(10n ** 18n)
    expect(await slot(evm, T1, SLOT.lastValue)).toBe(10n ** 18n)
    expect(await balance(evm, PAYEE)).toBe(5n)
    expect(await balance(evm, EOA)).toBe(EOA_FUNDS - 10n ** 18n - 5n)
  })

  it('to == address(0) targets the EOA itself', async () => {
    const evm = await makeEvm()
    // A nested execute reaches the EOA with msg.sender == EOA; at address(0) it would do nothing.
    const inner = executeData(MODE_BATCH, [{ to: T1, value: 0n, data: store(99n) }])
    const r = await run(
      evm,
      executeData(MODE_BATCH, [
        { to: ZERO, value: 0n, data: inner },
        { to: ZERO, value: 3n, data: '0x' }, // hits receive()
      ]),
    )
    expect(failure(r)).toBeUndefined()
    expect(await slot(evm, T1, SLOT.stored)).toBe(99n)
    expect(await slot(evm, T1, SLOT.lastSender)).toBe(BigInt(EOA))
    expect(await balance(evm, ZERO)).toBe(0n)
    expect(await balance(evm, EOA)).toBe(EOA_FUNDS)
  })

  it('receive() lets the EOA take plain ETH from anyone', async () => {
    const evm = await makeEvm()
    const r = await run(evm, '0x', { caller: OUTSIDER, value: 1234n })
    expect(failure(r)).toBeUndefined()
    expect(await balance(evm, EOA)).toBe(EOA_FUNDS + 1234n)
  })

  it('runs a call with exactly the gas limit from opData', async () => {
    const evm = await makeEvm()
    const recordWith = async (g: bigint) => {
      const { result, gas } = await gasGivenTo(evm, T1, () =>
        run(
          evm,
          executeData(
            MODE_BATCH_OPDATA,
            [
              { to: T2, value: 0n, data: store(1n) },
              { to: T1, value: 0n, data: recordGas },
            ],
            gasLimitsOpData([0n, g]),
          ),
        ),
      )
      expect(failure(result)).toBeUndefined()
      expect(gas).toEqual([g])
      return slot(evm, T1, SLOT.gasAtEntry)
    }
    const at50k = await recordWith(50_000n)
    const at60k = await recordWith(60_000n)
    // What the callee sees at gasleft() is its limit less the same dispatch cost both times.
    expect(at60k - at50k).toBe(10_000n)
    expect(at50k < 50_000n && at50k > 49_000n).toBe(true)
  })

  it('with value, the callee gets the gas limit plus the 2300 stipend', async () => {
    const evm = await makeEvm()
    const { result, gas } = await gasGivenTo(evm, T1, () =>
      run(evm, executeData(MODE_BATCH_OPDATA, [{ to: T1, value: 1n, data: store(1n) }], gasLimitsOpData([80_000n]))),
    )
    expect(failure(result)).toBeUndefined()
    expect(gas).toEqual([80_000n + 2300n])
    expect(await balance(evm, T1)).toBe(1n)
  })

  it('a call that needs more than its gas limit fails and reverts the batch', async () => {
    const evm = await makeEvm()
    const calls: Call[] = [
      { to: T2, value: 0n, data: store(1n) },
      { to: T1, value: 0n, data: recordGas }, // a cold SSTORE alone costs 22100
    ]
    const { result, gas } = await gasGivenTo(evm, T1, () => run(evm, executeData(MODE_BATCH_OPDATA, calls, gasLimitsOpData([0n, 20_000n]))))
    expect(gas).toEqual([20_000n])
    expect(failure(result)).toBe('revert')
    expect(returned(result)).toBe('0x') // an out-of-gas callee returns no data, bubbled as is
    expect(await slot(evm, T2, SLOT.stored)).toBe(0n)
    expect(await slot(evm, T1, SLOT.gasAtEntry)).toBe(0n)
    // The same batch with room to spare succeeds.
    expect(failure(await run(evm, executeData(MODE_BATCH_OPDATA, calls, gasLimitsOpData([0n, 30_000n]))))).toBeUndefined()
    expect(await slot(evm, T2, SLOT.stored)).toBe(1n)
  })

  it('reverts with InsufficientGasForCall rather than give a call less than its limit', async () => {
    const evm = await makeEvm()
    const calls: Call[] = [
      { to: T2, value: 0n, data: store(1n) },
      { to: T1, value: 0n, data: recordGas },
    ]
    const { result, gas } = await gasGivenTo(evm, T1, () =>
      run(evm, executeData(MODE_BATCH_OPDATA, calls, gasLimitsOpData([0n, 200_000n])), { gasLimit: 150_000n }),
    )
    expect(gas).toEqual([]) // the call was never made
    expect(failure(result)).toBe('revert')
    expect(returned(result)).toBe(executorError('InsufficientGasForCall', [1n, 200_000n]))
    expect(decodeErrorResult({ abi: executorAbi, data: returned(result) }).args).toEqual([1n, 200_000n])
    expect(await slot(evm, T2, SLOT.stored)).toBe(0n)
  })

  // The worst cases the contract's reserve must cover (EIP-2929 cold access 2600, EIP-7702
  // delegate resolution 2600, value transfer 9000, new account 25000) and the reserve it keeps
  // for each (CALL_RESERVE, plus VALUE_CALL_RESERVE with value).
  const scenarios = [
    { name: 'a cold contract', to: T1, value: 0n, data: recordGas, callCost: 2600n, reserve: 5400n },
    { name: 'a cold EIP-7702 account delegating to a cold contract', to: DELEGATED, value: 0n, data: recordGas, callCost: 5200n, reserve: 5400n },
    { name: 'a new account, sent value', to: FRESH, value: 1n, data: '0x' as Hex, callCost: 36_600n, reserve: 39_400n },
  ]
  it.each(scenarios)(
    'at the outer-gas threshold a call to $name gets exactly its limit',
    async ({ to, value, data: callData, callCost, reserve }) => {
      const G = 100_000n
      const expectedGas = value === 0n ? G : G + 2300n // the CALL adds the stipend when value is sent
      const evm = await makeEvm()
      const data = executeData(MODE_BATCH_OPDATA, [{ to, value, data: callData }], gasLimitsOpData([G]))
      // Each attempt is rolled back, so all of them start from the same (cold, empty) state.
      const attempt = (gasLimit: bigint) => gasGivenTo(evm, to, () => run(evm, data, { gasLimit, undo: true }))
      // Smallest outer gas at which the executor makes the call at all.
      let lo = 0n
      let hi = 1_000_000n
      while (hi - lo > 1n) {
        const mid = (lo + hi) / 2n
        if ((await attempt(mid)).gas.length > 0) hi = mid
        else lo = mid
      }
      const below = await attempt(hi - 1n)
      expect(below.gas).toEqual([])
      expect(failure(below.result)).toBe('revert')
      expect(returned(below.result)).toBe(executorError('InsufficientGasForCall', [0n, G]))
      // From the threshold on, every outer gas gives the callee exactly G: never the smaller
      // EIP-150 cap (all but 1/64 of what is left), whatever the rounding of that 1/64.
      for (let extra = 0n; extra < 130n; extra++) {
        const { result, gas } = await attempt(hi + extra)
        expect(gas).toEqual([expectedGas])
        expect(failure(result)).toBeUndefined()
      }
      // And the check is tight: at the threshold the EIP-150 cap exceeds G by no more than the
      // part of the reserve this call does not need.
      let gasAtCall = 0n
      const onStep = (s: { opcode: { name: string }; depth: number; gasLeft: bigint }) => {
        if (s.depth === 0 && s.opcode.name === 'CALL') gasAtCall = s.gasLeft
      }
      evm.events!.on('step', onStep)
      await attempt(hi)
      evm.events!.off('step', onStep)
      const available = gasAtCall - callCost
      const cap = available - available / 64n
      expect(cap - G).toBeGreaterThanOrEqual(0n)
      expect(cap - G).toBeLessThanOrEqual(reserve - callCost)
    },
  )

  it('opData whose gas limits do not match the calls reverts with InvalidOpData()', async () => {
    const evm = await makeEvm()
    const calls: Call[] = [
      { to: T1, value: 0n, data: store(1n) },
      { to: T2, value: 0n, data: store(2n) },
    ]
    for (const opData of [
      gasLimitsOpData([0n]),
      gasLimitsOpData([0n, 0n, 0n]),
      gasLimitsOpData([]),
      '0x1234' as Hex,
      `${gasLimitsOpData([0n, 0n])}00` as Hex, // trailing byte
      encodeAbiParameters(parseAbiParameters('uint256, uint256[]'), [0n, [0n, 0n]]), // not a lone uint256[]
    ]) {
      const r = await run(evm, executeData(MODE_BATCH_OPDATA, calls, opData))
      expect(failure(r)).toBe('revert')
      expect(returned(r)).toBe(executorError('InvalidOpData'))
    }
    expect(await slot(evm, T1, SLOT.stored)).toBe(0n)
  })
})
