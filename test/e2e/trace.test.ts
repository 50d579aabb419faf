import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { encodeFunctionData, getContractAddress, keccak256, toFunctionSelector } from 'viem'

import { Forwarder, Reverter, Sink, Store } from './fixtures/contracts.ts'
import { ZERO_WORD, deploy, startChain, toHex, word } from './helpers.ts'
import { EXECUTOR, batch, callsStatus, deployAll, sendCalls, storeSet } from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

type StructLog = {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  stack?: string[]
  memory?: string[]
  storage?: Record<string, string>
}
type StructTrace = { gas: number; failed: boolean; returnValue: Hex; structLogs: StructLog[] }
type CallFrame = {
  from: Hex
  gas: Hex
  gasUsed: Hex
  to?: Hex
  input: Hex
  output?: Hex
  error?: string
  revertReason?: string
  calls?: CallFrame[]
  logs?: { address: Hex; topics: Hex[]; data: Hex; position: Hex }[]
  value?: Hex
  type: string
}
type Receipt = { gasUsed: Hex; status: Hex }

let t: TestChain
let sender: Hex
let store: Hex
let sink: Hex
let forwarder: Hex
let reverter: Hex
/** A contract whose code jumps back to its start forever (JUMPDEST PUSH1 0 JUMP), until its gas runs out. */
let loop: Hex

const LOOP_INIT_CODE = '0x6004600c60003960046000f35b600056'

beforeAll(async () => {
  t = await startChain()
  sender = t.accounts[1]!.address.toLowerCase() as Hex
  store = (await deploy(t, Store, [1n])).address
  sink = (await deploy(t, Sink)).address
  reverter = (await deploy(t, Reverter)).address
  await t.mine()
  forwarder = (await deploy(t, Forwarder, [sink])).address
  loop = await deployLoop(t)
})

/** Deploys the endless loop from account 0 and mines it; its address. */
async function deployLoop(chain: TestChain): Promise<Hex> {
  const from = chain.accounts[0]!.address
  const nonce = await chain.publicClient.getTransactionCount({ address: from, blockTag: 'pending' })
  await chain.wallet(0).sendTransaction({ data: LOOP_INIT_CODE })
  await chain.mine()
  return getContractAddress({ from, nonce: BigInt(nonce) }).toLowerCase() as Hex
}

afterAll(async () => {
  await t?.close()
})

const setData = (value: bigint) => encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [value] })
const poke = encodeFunctionData({ abi: Forwarder.abi, functionName: 'poke' })

/** Sends a transaction from dev account 1 and seals it; its hash and receipt. */
async function sealed(to: Hex, data: Hex): Promise<{ hash: Hex; receipt: Receipt }> {
  const hash = await t.wallet(1).sendTransaction({ to, data, gas: 200_000n })
  await t.mine()
  return { hash, receipt: await t.rpc<Receipt>('eth_getTransactionReceipt', [hash]) }
}

describe('debug_traceTransaction with the struct logger', () => {
  it('default: every step with its gas and stack, the storage an SSTORE wrote, and the gas the receipt charged', async () => {
    const { hash, receipt } = await sealed(store, setData(42n))
    const trace = await t.rpc<StructTrace>('debug_traceTransaction', [hash])
    expect(trace).toMatchObject({ gas: Number(BigInt(receipt.gasUsed)), failed: false, returnValue: '0x' })
    expect(trace.structLogs[0]).toEqual({ pc: 0, op: 'PUSH1', gas: expect.any(Number), gasCost: 3, depth: 1, stack: [] })
    const sstore = trace.structLogs.find((log) => log.op === 'SSTORE')!
    expect(sstore.storage).toEqual({ [ZERO_WORD]: word(42n) })
    expect(sstore.stack!.slice(-2)).toEqual(['0x2a', '0x0'])
    // Each step's gas is the previous step's less its cost, in one frame.
    for (let i = 1; i < trace.structLogs.length; i++) {
      expect(trace.structLogs[i]!.gas).toBe(trace.structLogs[i - 1]!.gas - trace.structLogs[i - 1]!.gasCost)
    }
  })

  it("geth's options: disableStack, disableStorage, enableMemory and limit", async () => {
    const { hash } = await sealed(store, setData(43n))
    const plain = await t.rpc<StructTrace>('debug_traceTransaction', [hash, { disableStack: true, disableStorage: true }])
    expect(plain.structLogs.every((log) => log.stack === undefined && log.storage === undefined)).toBe(true)
    const withMemory = await t.rpc<StructTrace>('debug_traceTransaction', [hash, { enableMemory: true }])
    const mstore = withMemory.structLogs.findIndex((log) => log.op === 'MSTORE')
    expect(withMemory.structLogs[mstore]!.memory).toBeUndefined()
    expect(withMemory.structLogs[mstore + 1]!.memory).toEqual([ZERO_WORD, ZERO_WORD, word(0x80n)])
    const limited = await t.rpc<StructTrace>('debug_traceTransaction', [hash, { limit: 5 }])
    expect(limited.structLogs).toEqual(withMemory.structLogs.slice(0, 5).map(({ memory: _memory, ...log }) => log))
  })

  it('a nested call: the CALL costs what it hands over, the callee runs at depth 2, and a halt names its op', async () => {
    const { hash } = await sealed(forwarder, poke)
    const { structLogs } = await t.rpc<StructTrace>('debug_traceTransaction', [hash])
    const call = structLogs.findIndex((log) => log.op === 'CALL')
    const inner = structLogs[call + 1]!
    expect(inner).toMatchObject({ pc: 0, depth: 2 })
    // The callee starts with the gas its caller handed over: what the CALL cost, less the access and memory charges.
    expect(structLogs[call]!.gasCost).toBeGreaterThan(inner.gas)
    expect(structLogs[call]!.gasCost - inner.gas).toBeLessThanOrEqual(2600 + 100)
    const out = await t.rpc<StructTrace>('debug_traceCall', [{ from: sender, to: loop, gas: '0x5208' }, 'latest'])
    expect(out.failed).toBe(true)
    expect(out.returnValue).toBe('0x')
    expect(out.structLogs.at(-1)).toMatchObject({ error: 'out of gas' })
  })
})

describe('callTracer', () => {
  it('default: the call tree of a forwarded call, with the gas of each frame', async () => {
    const { hash, receipt } = await sealed(forwarder, poke)
    const trace = await t.rpc<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(trace).toEqual({
      from: sender,
      gas: toHex(200_000n),
      gasUsed: receipt.gasUsed,
      to: forwarder,
      input: poke,
      output: '0x',
      calls: [
        {
          from: forwarder,
          gas: expect.stringMatching(/^0x[0-9a-f]+$/),
          gasUsed: expect.stringMatching(/^0x[0-9a-f]+$/),
          to: sink,
          input: encodeFunctionData({ abi: Sink.abi, functionName: 'poke' }),
          output: '0x',
          value: '0x0',
          type: 'CALL',
        },
      ],
      value: '0x0',
      type: 'CALL',
    })
    expect(await t.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }])).toEqual({
      ...trace,
      calls: undefined,
    })
  })

  it('a revert carries its output and decoded reason; withLog lists logs with their position', async () => {
    const nope = encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' })
    const { hash } = await sealed(reverter, nope)
    const reverted = await t.rpc<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(reverted).toMatchObject({ error: 'execution reverted', revertReason: 'nope', type: 'CALL' })
    expect(reverted.output!.slice(0, 10)).toBe('0x08c379a0')
    const { hash: setHash } = await sealed(store, setData(7n))
    const logged = await t.rpc<CallFrame>('debug_traceTransaction', [setHash, { tracer: 'callTracer', tracerConfig: { withLog: true } }])
    const topic = keccak256(new TextEncoder().encode('ValueSet(uint256,address)'))
    expect(logged.logs).toEqual([
      { address: store, topics: [topic, word(7n), `0x${sender.slice(2).padStart(64, '0')}`], data: '0x', position: '0x0' },
    ])
  })

  it('a wallet batch: the EIP-7702 executor in the account calls each contract in turn', async () => {
    const [storeA, storeB] = await deployAll(t, [
      { contract: Store, args: [0n] },
      { contract: Store, args: [0n] },
    ])
    const account = t.accounts[4]!.address.toLowerCase() as Hex
    const { id } = await sendCalls(t, batch(account, [storeSet(storeA!, 11n), storeSet(storeB!, 12n)]))
    await t.mine()
    const status = await callsStatus(t, id)
    expect(status.status).toBe(200)
    const hash = status.receipts![0]!.transactionHash
    const trace = await t.rpc<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }])
    // The type-4 transaction calls the account itself, which runs the executor's code (ERC-7821 execute).
    expect(trace).toMatchObject({ from: account, to: account, type: 'CALL', gasUsed: status.receipts![0]!.gasUsed })
    expect(trace.error).toBeUndefined()
    expect(trace.calls!.map((call) => [call.type, call.from, call.to, call.input, call.value, call.error])).toEqual([
      ['CALL', account, storeA, setData(11n), '0x0', undefined],
      ['CALL', account, storeB, setData(12n), '0x0', undefined],
    ])
    expect(trace.calls!.map((call) => call.logs!.map((log) => [log.address, log.topics[1]]))).toEqual([[[storeA, word(11n)]], [[storeB, word(12n)]]])
    // The delegate's code is the executor's; the account keeps its designator.
    expect(await t.rpc('eth_getCode', [account, 'latest'])).toBe(`0xef0100${EXECUTOR.slice(2)}`)
  })
})

describe('prestateTracer, 4byteTracer and noopTracer', () => {
  it('prestateTracer: the accounts and slots as they were; diffMode: what changed, before and after', async () => {
    const before = await t.rpc<Hex>('eth_getStorageAt', [store, '0x0', 'latest'])
    const { hash } = await sealed(store, setData(99n))
    const pre = await t.rpc<Record<Hex, { balance: Hex; nonce?: number; code?: Hex; codeHash?: Hex; storage?: Record<Hex, Hex> }>>(
      'debug_traceTransaction',
      [hash, { tracer: 'prestateTracer' }],
    )
    // A contract's nonce starts at 1 (EIP-161).
    expect(pre[store]).toEqual({
      balance: '0x0',
      code: Store.deployedBytecode,
      codeHash: keccak256(Store.deployedBytecode),
      nonce: 1,
      storage: { [ZERO_WORD]: before },
    })
    expect(pre[sender]!.nonce).toBeGreaterThan(0)
    const diff = await t.rpc<{ pre: typeof pre; post: typeof pre }>('debug_traceTransaction', [
      hash,
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
    ])
    expect(diff.pre[store]).toEqual(pre[store])
    expect(diff.post[store]).toEqual({ storage: { [ZERO_WORD]: word(99n) } })
    expect(diff.post[sender]!.nonce).toBe(pre[sender]!.nonce! + 1)
    expect(BigInt(diff.post[sender]!.balance)).toBeLessThan(BigInt(pre[sender]!.balance))
  })

  it('4byteTracer counts selectors by calldata size; noopTracer answers {}', async () => {
    const { hash } = await sealed(forwarder, poke)
    const pokeSelector = toFunctionSelector('poke()')
    expect(await t.rpc('debug_traceTransaction', [hash, { tracer: '4byteTracer' }])).toEqual({ [`${pokeSelector}-0`]: 2 })
    expect(await t.rpc('debug_traceTransaction', [hash, { tracer: 'noopTracer' }])).toEqual({})
  })
})

describe('pending, blocks and calls', () => {
  it('a pre-confirmed transaction is traced before its block seals, and the same after', async () => {
    const hash = await t.wallet(2).sendTransaction({ to: forwarder, data: poke, gas: 200_000n })
    expect((await t.rpcError('debug_traceTransaction', [hash])).message).toBe('transaction not found')
    await t.preconfirm()
    const before = await t.rpc<CallFrame>('debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(before.calls![0]!.to).toBe(sink)
    const pendingBlock = await t.rpc<{ txHash: Hex; result: CallFrame }[]>('debug_traceBlockByNumber', ['pending', { tracer: 'callTracer' }])
    expect(pendingBlock).toEqual([{ txHash: hash, result: before }])
    const number = await t.mine()
    expect(await t.rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }])).toEqual(before)
    const block = await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', [toHex(number), false])
    expect(await t.rpc('debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }])).toEqual(pendingBlock)
  })

  it('debug_traceCall runs on the state after the block, with state overrides in its config', async () => {
    const traced = await t.rpc<CallFrame>('debug_traceCall', [{ from: sender, to: store, data: setData(5n) }, 'latest', { tracer: 'callTracer' }])
    expect(traced).toMatchObject({ from: sender, to: store, type: 'CALL', output: '0x' })
    const poked = await t.rpc<StructTrace>('debug_traceCall', [
      { from: sender, to: store, data: encodeFunctionData({ abi: Sink.abi, functionName: 'poke' }) },
      'latest',
      { stateOverrides: { [store]: { code: Sink.deployedBytecode } } },
    ])
    expect(poked.failed).toBe(false)
    expect(poked.structLogs.some((log) => log.op === 'SSTORE')).toBe(true)
  })

  it('errors: unknown hash, genesis, unknown block, unknown tracer, malformed timeout', async () => {
    expect(await t.rpcError('debug_traceBlockByNumber', ['0x0'])).toEqual({ code: -32000, message: 'genesis is not traceable' })
    const next = (await t.blockNumber()) + 1n
    expect(await t.rpcError('debug_traceBlockByNumber', [toHex(next)])).toEqual({ code: -32000, message: `block #${next} not found` })
    expect((await t.rpcError('debug_traceCall', [{ to: store }, 'latest', { tracer: 'jsTracer' }])).code).toBe(-32000)
    expect((await t.rpcError('debug_traceCall', [{ to: store }, 'latest', { timeout: 'soon' }])).code).toBe(-32602)
    // A value the sender cannot pay: refused as eth_call refuses it (and geth's debug_traceCall), before any run.
    const broke = { from: '0x000000000000000000000000000000000000dead', to: store, value: '0x1' }
    const refused = await t.rpcError('debug_traceCall', [broke, 'latest', { tracer: 'prestateTracer' }])
    expect(refused).toEqual(await t.rpcError('eth_call', [broke, 'latest']))
    expect(refused.message).toMatch(/^insufficient funds/)
  })
})

describe('the trace timeout', () => {
  // The loop with gas it cannot spend: at 12 gas a turn, 2^60 gas takes years, so the trace ends by its timeout
  // however fast the machine is. Osaka caps a call at 2^24 gas (EIP-7825), which a callTracer burns in about 3 s on
  // a quiet machine, so this chain is on Prague, with the call's gas cap raised.
  let endless: TestChain
  let endlessLoop: Hex

  beforeAll(async () => {
    endless = await startChain({ hardfork: 'prague', rpcGasCap: 2n ** 60n })
    endlessLoop = await deployLoop(endless)
  })

  afterAll(async () => {
    await endless?.close()
  })

  it('an endless loop traced with timeout "100ms" answers an error, and the node answers others meanwhile', async () => {
    const call = { from: endless.accounts[1]!.address, to: endlessLoop }
    expect(await endless.rpcError('debug_traceCall', [call, 'latest', { timeout: '100ms' }])).toEqual({
      code: -32000,
      message: 'execution timeout',
    })
    // A longer trace runs on a worker: a request sent while it runs is answered before it ends. Its timeout leaves
    // the request seconds to be answered in, which a loaded machine may need.
    let traceDone = false
    const long = endless.send('debug_traceCall', [call, 'latest', { tracer: 'callTracer', timeout: '3s' }]).then((response) => {
      traceDone = true
      return response
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await endless.rpc('eth_blockNumber')).toMatch(/^0x/)
    expect(traceDone).toBe(false)
    expect((await long).error).toEqual({ code: -32000, message: 'execution timeout' })
  })
})
