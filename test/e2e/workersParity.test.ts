/**
 * A node that runs calls on worker threads answers as one that runs them on its main thread (`workers: 0`), after
 * every kind of change to the chain's state. A worker reads a replica of the state, kept up to date by the changes
 * the main thread sends it; a replica that missed one answers from stale state, which a suite run against one kind
 * of node cannot see. Both nodes are driven by the same requests, and after each step the same reads (eth_call,
 * eth_estimateGas, eth_createAccessList, eth_simulateV1, debug_traceCall, at latest, pending and an older block)
 * must get the same answers from both. Each node's calls are also checked against its own main-thread reads
 * (eth_getBalance, eth_getStorageAt), which no worker or answer cache is involved in.
 */
import { encodeDeployData, encodeFunctionData, getContractAddress, hexToBigInt, parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { deriveAccounts } from '../../src/chain/spec/accounts.ts'
import { defaults } from '../../src/chain/spec/config.ts'
import { devChainGenesis } from '../../src/chain/spec/devGenesis.ts'
import { Store } from './fixtures/contracts.ts'
import { startChain, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { RpcResponse, TestChain } from './helpers.ts'

// The dev genesis at a fixed timestamp, and one second between blocks: both nodes' blocks hash alike, so every
// answer, block hashes and timestamps included, must be the same.
const genesis = { ...devChainGenesis({}, deriveAccounts(defaults.mnemonic, defaults.accounts)), timestamp: '0x6553f100' }

let onMain: TestChain
let onWorkers: TestChain

beforeAll(async () => {
  ;[onMain, onWorkers] = await Promise.all([startChain({ genesis, workers: 0 }), startChain({ genesis, workers: 1 })])
})

afterAll(async () => {
  await Promise.all([onMain?.close(), onWorkers?.close()])
})

/** Returns BALANCE and EXTCODEHASH of the address in its calldata, then BLOCKHASH(NUMBER - 1): 96 bytes. */
const PROBE_CODE: Hex = `0x${['5f35', '8031', '5f52', '3f', '602052', '6001430340', '604052', '60605ff3'].join('')}`
const probe = '0x00000000000000000000000000000000000000b0' as Hex
const whale = '0x7777777777777777777777777777777777777777' as Hex
const coded = '0x5555555555555555555555555555555555555555' as Hex
const slot0 = word(0n)
const GAS = { gas: 1_000_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n }
const GAS_HEX = { gas: '0xf4240', maxFeePerGas: '0x174876e800', maxPriorityFeePerGas: '0x1' }

const answerOf = ({ result, error }: RpcResponse) => ({ result, error })

/** Sends the same request to both nodes; their answers must be the same. Returns the result. */
async function both<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  const [main, workers] = await Promise.all([onMain.send(method, params), onWorkers.send(method, params)])
  expect(answerOf(workers), `${method} ${JSON.stringify(params)}`).toEqual(answerOf(main))
  if (main.error !== undefined) throw new Error(`${method} failed: ${main.error.code} ${main.error.message}`)
  return main.result as T
}

/** Signs a transaction from dev account `from` (viem signs deterministically) and sends it to both nodes. */
async function sendSigned(from: number, fields: { to?: Hex; data: Hex }) {
  const account = onMain.accounts[from]!
  const nonce = hexToBigInt(await both<Hex>('eth_getTransactionCount', [account.address, 'pending']))
  const raw = await account.signTransaction({ chainId: 31337, type: 'eip1559', nonce: Number(nonce), ...GAS, ...fields })
  await both('eth_sendRawTransaction', [raw])
  return { nonce, from: account.address }
}

const setValue = (value: bigint) => encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [value] })
const getValue = encodeFunctionData({ abi: Store.abi, functionName: 'value' })

let store: Hex

/** Deploys Store(1) from dev account 0 and seals it. */
async function deployStore() {
  const deployment = await sendSigned(0, { data: encodeDeployData({ abi: Store.abi, bytecode: Store.bytecode, args: [1n] }) })
  store = getContractAddress({ from: deployment.from, nonce: deployment.nonce }).toLowerCase() as Hex
  await both('evm_mine')
}

/** Every read a worker makes, at latest, pending and block 1, compared between the nodes and checked on each. */
async function compareReads() {
  const tags = ['latest', 'pending', '0x1']
  const dev = onMain.accounts[0]!.address
  for (const tag of tags) {
    for (const address of [dev, whale, coded, store]) {
      await readsBalance(address, tag)
    }
    await readsStoreValue(tag)
    // Overridden state is sent to a worker per request, as a diff over the block's state.
    const overridden = await compare('eth_call', [{ to: probe, data: word(hexToBigInt(store)) }, tag, { [store]: { balance: '0x5' } }])
    if (overridden.error === undefined) expect((overridden.result as string).slice(0, 66)).toBe(word(5n))
    await compare('eth_estimateGas', [{ from: dev, to: store, data: setValue(77n) }, tag])
    await compare('eth_createAccessList', [{ from: dev, to: store, data: setValue(5n) }, tag])
    await compare('eth_simulateV1', [
      {
        blockStateCalls: [
          {
            calls: [
              { from: dev, to: store, data: setValue(7n) },
              { to: store, data: getValue },
            ],
          },
        ],
      },
      tag,
    ])
    // A deployment from the whale: the created address comes from its nonce, and the value from its balance.
    await compare('debug_traceCall', [{ from: whale, data: '0x00', value: '0x1' }, tag, { tracer: 'callTracer' }])
  }
}

async function compare(method: string, params: unknown[]) {
  const [main, workers] = await Promise.all([onMain.send(method, params), onWorkers.send(method, params)])
  expect(answerOf(workers), `${method} ${JSON.stringify(params)}`).toEqual(answerOf(main))
  return main
}

/** The probe's BALANCE of `address` through eth_call, the same on both nodes and the same as eth_getBalance. */
async function readsBalance(address: Hex, tag: string) {
  const call = await compare('eth_call', [{ to: probe, data: word(hexToBigInt(address)) }, tag])
  if (call.error !== undefined) return
  const balance = hexToBigInt(`0x${(call.result as string).slice(2, 66)}`)
  for (const node of [onMain, onWorkers]) expect(balance).toBe(hexToBigInt(await node.rpc<Hex>('eth_getBalance', [address, tag])))
}

/** Store.value() through eth_call, the same on both nodes and the same as its slot 0 read by eth_getStorageAt. */
async function readsStoreValue(tag: string) {
  const call = await compare('eth_call', [{ to: store, data: getValue }, tag])
  if (call.error !== undefined) return
  for (const node of [onMain, onWorkers]) expect(call.result).toBe(await node.rpc<Hex>('eth_getStorageAt', [store, slot0, tag]))
}

describe('workers and the main thread answer alike', () => {
  test('after state edits, blocks, pending transactions, impersonation, snapshots, reverts and a reset', async () => {
    await both('anvil_setBlockTimestampInterval', [1])
    await both('anvil_setCode', [probe, PROBE_CODE])
    await deployStore()
    await both('evm_mine')
    await compareReads()

    await both('anvil_setBalance', [whale, `0x${parseEther('10').toString(16)}`])
    await compareReads()
    expect(await onWorkers.rpc('eth_call', [{ to: probe, data: word(hexToBigInt(whale)) }, 'latest'])).toMatch(
      new RegExp(`^${word(parseEther('10'))}`),
    )
    await both('anvil_setCode', [coded, '0x6001600055'])
    await both('anvil_setStorageAt', [store, slot0, word(42n)])
    await both('anvil_setNonce', [whale, '0x7'])
    await compareReads()
    expect(await onWorkers.rpc('eth_call', [{ to: store, data: getValue }, 'latest'])).toBe(word(42n))

    const snapshot = await both<Hex>('evm_snapshot')

    // A pending transaction, pre-confirmed: pending reads see it, latest reads do not.
    await sendSigned(0, { to: store, data: setValue(99n) })
    await both('flashchain_preconfirm')
    await compareReads()
    expect(await onWorkers.rpc('eth_call', [{ to: store, data: getValue }, 'pending'])).toBe(word(99n))
    await both('evm_mine')
    await compareReads()

    // An impersonated account sends without a key.
    await both('anvil_impersonateAccount', [whale])
    await both('eth_sendTransaction', [{ from: whale, to: store, data: setValue(1234n), nonce: '0x7', ...GAS_HEX }])
    await both('evm_mine')
    await both('anvil_setBalance', [onMain.accounts[0]!.address, `0x${parseEther('3').toString(16)}`])
    await both('anvil_setStorageAt', [store, slot0, word(555n)])
    await compareReads()
    expect(await onWorkers.rpc('eth_call', [{ to: store, data: getValue }, 'latest'])).toBe(word(555n))

    // Back to before the pending transaction: the blocks and the edits since are taken back.
    expect(await both('evm_revert', [snapshot])).toBe(true)
    await compareReads()
    expect(await onWorkers.rpc('eth_call', [{ to: store, data: getValue }, 'latest'])).toBe(word(42n))
    await both('evm_mine')
    await compareReads()

    // A revert of edits alone, with no block between.
    const again = await both<Hex>('evm_snapshot')
    await both('anvil_setBalance', [store, `0x${parseEther('1').toString(16)}`])
    await both('anvil_setStorageAt', [store, slot0, word(8n)])
    await compareReads()
    expect(await both('evm_revert', [again])).toBe(true)
    await compareReads()
    expect(await onWorkers.rpc('eth_call', [{ to: store, data: getValue }, 'latest'])).toBe(word(42n))

    await both('anvil_mine', ['0x3'])
    await sendSigned(1, { to: store, data: setValue(3n) })
    await both('evm_mine')
    await compareReads()

    // Back to block 0: the probe and the store are gone with everything else, and are put back.
    await both('anvil_reset')
    await both('anvil_setBlockTimestampInterval', [1])
    await both('anvil_setCode', [probe, PROBE_CODE])
    await deployStore()
    await compareReads()
    await both('anvil_setBalance', [whale, '0x1'])
    await compareReads()
  }, 120_000)
})
