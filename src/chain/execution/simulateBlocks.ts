import { Block } from '@ethereumjs/block'
import { getActivePrecompiles } from '@ethereumjs/evm'
import { createTx } from '@ethereumjs/tx'
import { bytesToHex, createAddressFromString } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'

import { ExecutionFailedError, InvalidInputError, SimulationRejectedError } from '../errors.ts'
import { sealedBlockOf } from '../blocks/views.ts'
import { keccak256 } from '../crypto/keccak.ts'
import { haltReason } from '../gethErrors.ts'
import { builderRecord, setBuilderCommon } from '../ethereumjs/blockBuilder.ts'
import { startBuilder } from '../production/startBuilder.ts'
import { toReceipt } from '../production/receipts.ts'
import { createOverlay } from '../state/overlay.ts'
import { buildStateTrie } from '../state/proof.ts'
import { FlatStateManager } from '../state/stateManager.ts'
import { createBlockchain, createCallTransaction, createEnvBlock, setHardforkFor } from './executor.ts'
import { withOverrides } from './overrides.ts'
import { decodeRevertReason } from './revert.ts'
import { createSimulationLogs } from './simulationLogs.ts'

import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { RunTxResult } from '@ethereumjs/vm'
import type { Hex } from '../../hex.ts'
import type { StateHistory } from '../state/history.ts'
import type { StateDiff, StateReader } from '../state/types.ts'
import type { StateTrie } from '../state/trie.ts'
import type { BlockEnv, SimulatedBlock, SimulatedCall } from '../types.ts'
import type { BlockHashes, CallRequest } from './executor.ts'
import type { BlockOverrides, StateOverrides } from './overrides.ts'
import type { IndexedLog } from './simulationLogs.ts'

/** eth_simulateV1's input: blocks of calls, each with the overrides to apply before it, and the validation switch. */
export type SimulationRequest = {
  blocks: { blockOverrides?: BlockOverrides; stateOverrides?: StateOverrides; calls?: CallRequest[] }[]
  validation: boolean
  /** ERC-7528 Transfer logs for the ether each call moves. */
  traceTransfers: boolean
}

/** geth's limits: at most 256 blocks past the base, each 12 s after the one before unless told otherwise. */
const MAX_BLOCKS = 256n
const TIMESTAMP_INCREMENT = 12n
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Hex
const ZERO_HASH = `0x${'00'.repeat(32)}` as Hex
/** EIP-2681: the nonce no transaction may carry. geth keeps nonces in 64 bits, so one more wraps to 0. */
const MAX_NONCE = 2n ** 64n - 1n

/** The block a simulation builds on, and the state after it. */
export type SimulationBase = { block: Block; state: StateReader }

/** What the chain lends a simulation: its rules, its blocks' hashes, its flat history and its gas caps. */
export type SimulationHost = {
  common: Common
  blockHashes: BlockHashes
  history: StateHistory
  rpcGasCap: bigint
  txGasCap: (env: { number: bigint; timestamp: bigint }) => bigint | undefined
}

/**
 * The block's precompiles, with the moves its state overrides ask for (`movePrecompileToAddress`), as geth applies
 * them: the precompile answers at the new address and no longer at its own, for this block only. Moving an account
 * that is not a precompile is refused.
 */
function movePrecompiles(precompiles: Map<string, unknown>, common: Common, overrides: StateOverrides | undefined) {
  precompiles.clear()
  for (const [address, precompile] of getActivePrecompiles(common)) precompiles.set(address, precompile)
  for (const [address, override] of Object.entries(overrides ?? {}) as [Hex, StateOverrides[Hex]][]) {
    const to = override.movePrecompileToAddress
    if (to === undefined) continue
    const precompile = precompiles.get(address.slice(2))
    if (precompile === undefined) throw new ExecutionFailedError(`account ${address} is not a precompile`)
    precompiles.delete(address.slice(2))
    precompiles.set(to.slice(2), precompile)
  }
}

/**
 * What the block builder is given for `tx`. The builder makes the block's transactions again from those it is given,
 * and ethereumjs refuses to make one at nonce 2^64 - 1; such a transaction is given as a copy at nonce 0 that
 * serializes as the real one, so that the roots are right, and the block is made again with the real ones.
 */
function builderTransaction(tx: TypedTransaction): TypedTransaction {
  if (tx.nonce !== MAX_NONCE) return tx
  const copy = createTx({ ...tx.toJSON(), nonce: 0n }, { common: tx.common, freeze: false })
  return Object.assign(copy, { serialize: () => tx.serialize() })
}

/** An ethereumjs refusal of a simulated call, as the reason eth_simulateV1's codes tell apart. */
function validationError(message: string, from: Hex): SimulationRejectedError | ExecutionFailedError {
  // ethereumjs appends the block and transaction it refused, in parentheses.
  const detail = message.split('\n')[0]!.replace(/ \(vm hf=.*$/s, '')
  let match: RegExpMatchArray | null
  if ((match = detail.match(/account has nonce of: (\d+) tx has nonce of: (\d+)/)) !== null) {
    const [state, tx] = [BigInt(match[1]!), BigInt(match[2]!)]
    return new SimulationRejectedError({ kind: tx < state ? 'nonceTooLow' : 'nonceTooHigh', address: from, txNonce: tx, stateNonce: state })
  }
  if ((match = detail.match(/\((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/)) !== null) {
    return new SimulationRejectedError({ kind: 'feeCapTooLow', address: from, maxFeePerGas: BigInt(match[1]!), baseFee: BigInt(match[2]!) })
  }
  if ((match = detail.match(/gas limit (\d+) is lower than the minimum gas limit of (\d+)/)) !== null) {
    return new SimulationRejectedError({ kind: 'intrinsicGasTooLow', gas: BigInt(match[1]!), minimum: BigInt(match[2]!) })
  }
  if ((match = detail.match(/maxFeePerBlobGas (\d+)\) is less than block blobGasPrice \((\d+)\)/)) !== null) {
    return new SimulationRejectedError({
      kind: 'blobFeeCapTooLow',
      address: from,
      maxFeePerBlobGas: BigInt(match[1]!),
      blobBaseFee: BigInt(match[2]!),
    })
  }
  if ((match = detail.match(/(?:upfront|max) cost is: (\d+) and the sender's account \S+ only has: (\d+)/)) !== null) {
    return new SimulationRejectedError({ kind: 'insufficientFunds', address: from, have: BigInt(match[2]!), want: BigInt(match[1]!) })
  }
  return new ExecutionFailedError(detail)
}

/**
 * eth_simulateV1: calls run as transactions in blocks built on top of `base`, each block's state and block overrides
 * applied before its calls, one block's state carried into the next. Blocks are built as the producer builds them
 * (system calls, requests, every root), so each has a real hash that later blocks' BLOCKHASH sees. Without
 * `validation`, a block's base fee is 0 unless overridden and nonces are not checked; balances always are.
 */
export async function simulateBlocks(host: SimulationHost, base: SimulationBase, request: SimulationRequest): Promise<SimulatedBlock[]> {
  if (request.blocks.length === 0) throw new InvalidInputError('empty input')
  const { common, history } = host

  // Numbers and timestamps strictly increase; a gap in numbers is filled with empty blocks.
  const planned: { number: bigint; timestamp: bigint; input: SimulationRequest['blocks'][number] | undefined }[] = []
  let number = base.block.header.number
  let timestamp = base.block.header.timestamp
  for (const input of request.blocks) {
    const wanted = input.blockOverrides?.number ?? number + 1n
    if (wanted <= number) throw new SimulationRejectedError({ kind: 'blockNumberOrder', number: wanted, previous: number })
    if (wanted - base.block.header.number > MAX_BLOCKS) throw new SimulationRejectedError({ kind: 'tooManyBlocks' })
    for (let gap = number + 1n; gap < wanted; gap++) {
      timestamp += TIMESTAMP_INCREMENT
      planned.push({ number: gap, timestamp, input: undefined })
    }
    const time = input.blockOverrides?.time
    if (time !== undefined && time <= timestamp) throw new SimulationRejectedError({ kind: 'timestampOrder', timestamp: time, previous: timestamp })
    timestamp = time ?? timestamp + TIMESTAMP_INCREMENT
    number = wanted
    planned.push({ number, timestamp, input })
  }

  const stateManager = new FlatStateManager(base.state)
  // Every simulated block gets its real state root, from a trie of the state it leaves.
  // Built once from the first block's state, then brought forward by each block's overrides and writes: building it
  // again from the whole state for every block made a long simulation cost seconds more than its calls.
  let trie: StateTrie | undefined
  const overridden: StateDiff[] = []
  stateManager.computeStateRoot = async (writes) => {
    const state = createOverlay(writes, stateManager.base)
    if (trie === undefined) trie = await buildStateTrie(state, history)
    else for (const diff of [...overridden.splice(0), writes]) await trie.apply(diff, state)
    overridden.length = 0
    return trie.root()
  }
  const simulatedHashes = new Map<bigint, Uint8Array>()
  const vm = await createVM({
    common: common.copy(),
    stateManager,
    blockchain: createBlockchain((n) => simulatedHashes.get(n) ?? host.blockHashes(n)),
  })
  let gasPool = host.rpcGasCap
  let parent = base.block
  const results: SimulatedBlock[] = []

  for (const { number, timestamp, input } of planned) {
    const overrides = input?.blockOverrides ?? {}
    const parentHeader = parent.header
    vm.common.setHardforkBy({ blockNumber: number, timestamp })
    const env: BlockEnv = {
      number,
      timestamp,
      gasLimit: overrides.gasLimit ?? parentHeader.gasLimit,
      baseFeePerGas: vm.common.isActivatedEIP(1559)
        ? (overrides.baseFeePerGas ?? (request.validation ? parentHeader.calcNextBaseFee() : 0n))
        : undefined,
      coinbase: overrides.feeRecipient ?? (parentHeader.coinbase.toString() as Hex),
      prevRandao: overrides.prevRandao ?? ZERO_HASH,
      excessBlobGas: vm.common.isActivatedEIP(4844)
        ? parentHeader.excessBlobGas === undefined
          ? 0n
          : parentHeader.calcNextExcessBlobGas(vm.common)
        : undefined,
      parentHash: bytesToHex(parent.hash()) as Hex,
      parentBeaconBlockRoot: vm.common.isActivatedEIP(4788) ? ZERO_HASH : undefined,
    }
    setHardforkFor(vm.common, env)
    movePrecompiles(vm.evm.precompiles as Map<string, unknown>, vm.common, input?.stateOverrides)
    // State overrides apply on top of what the blocks before left.
    stateManager.publish()
    // An override that only moves a precompile leaves the account itself as it is.
    const accountOverrides = Object.entries(input?.stateOverrides ?? {})
      .map(([address, { movePrecompileToAddress: _moved, ...fields }]) => [address, fields] as const)
      .filter(([, fields]) => Object.keys(fields).length > 0)
    if (accountOverrides.length > 0) {
      const { state } = withOverrides({ env, state: stateManager.base }, { state: Object.fromEntries(accountOverrides) })
      if (state.origin?.kind === 'overlay') overridden.push(state.origin.diff)
      stateManager.reset(state)
    }
    // geth runs simulated calls as messages, which EIP-7825's per-transaction cap does not bind: the calls are
    // built under the rules of the fork before it (the same transaction format and intrinsic gas).
    const txCommon = vm.common.copy()
    if (host.txGasCap(env) !== undefined) txCommon.setHardfork('prague')
    const builder = await startBuilder(vm, parent, env)
    const sealed = builderRecord(builder)
    // The block is assembled again from its transactions under the same rules they were built with (see txCommon).
    setBuilderCommon(builder, txCommon)
    // An overridden blob base fee is what calls pay and BLOBBASEFEE reads; the header keeps the excess blob gas.
    const { blobBaseFee } = overrides
    const envBlock = createEnvBlock(env, vm.common, env.baseFeePerGas, blobBaseFee)
    // Without validation a call that names no fee runs at base fee 0, as geth's NoBaseFee runs it.
    const freeBlock = createEnvBlock(env, vm.common, env.baseFeePerGas === undefined ? undefined : 0n, blobBaseFee)
    const calls: SimulatedCall[] = []
    const collector = createSimulationLogs(request.traceTransfers)
    const callLogs: IndexedLog[][] = []
    const senders: Hex[] = []
    const transactions: TypedTransaction[] = []

    for (const call of input?.calls ?? []) {
      const from = call.from ?? ZERO_ADDRESS
      const sender = createAddressFromString(from)
      const stateNonce = (await stateManager.getAccount(sender))?.nonce ?? 0n
      const nonce = call.nonce ?? stateNonce
      // geth checks EIP-2681's bound with the nonce, so only with validation: without, the call runs.
      if (request.validation && nonce === MAX_NONCE) throw new SimulationRejectedError({ kind: 'nonceMax', address: from, nonce })
      const wanted = call.gas ?? env.gasLimit - builder.gasUsed
      if (builder.gasUsed + wanted > env.gasLimit)
        throw new SimulationRejectedError({ kind: 'blockGasLimitReached', used: builder.gasUsed, limit: env.gasLimit })
      // As geth's gas pool: the RPC gas cap bounds the whole simulation, each call given at most what is left of it.
      const gas = wanted < gasPool ? wanted : gasPool
      let tx: ReturnType<typeof createCallTransaction>
      try {
        tx = createCallTransaction(
          {
            ...call,
            // ethereumjs makes no transaction at nonce 2^64 - 1: it is made at 0 and given its nonce below.
            nonce: nonce === MAX_NONCE ? 0n : nonce,
            // As geth types a call: authorizations make a set-code transaction, blob hashes a blob one, a gas price
            // alone a legacy one.
            type:
              call.type ??
              (call.authorizationList !== undefined
                ? 4
                : call.blobVersionedHashes !== undefined
                  ? 3
                  : call.gasPrice !== undefined && call.maxFeePerGas === undefined
                    ? 0
                    : 2),
          },
          gas,
          txCommon,
        )
      } catch (error) {
        throw new InvalidInputError(`invalid call: ${error instanceof Error ? error.message.split('\n')[0] : error}`)
      }
      // Unsigned, as geth has them: a zero signature, so that the transaction has a hash and the block a root.
      Object.assign(tx, { nonce, v: 0n, r: 0n, s: 0n })
      let result: RunTxResult
      const { events } = vm.evm
      collector.reset()
      for (const [event, listener] of Object.entries(collector.hooks)) events!.on(event as 'step', listener as never)
      // geth lets a simulated call come from an address with code, as eth_call (no EIP-3607 check).
      stateManager.codeHiddenFor = from.toLowerCase() as Hex
      try {
        const free = !request.validation && (call.maxFeePerGas ?? call.gasPrice ?? 0n) === 0n && (call.maxPriorityFeePerGas ?? 0n) === 0n
        // Likewise its blobs when it names no blob fee: geth skips the blob fee check under NoBaseFee.
        const freeBlobs = !request.validation && call.blobVersionedHashes !== undefined && (call.maxFeePerBlobGas ?? 0n) === 0n
        const block = free ? freeBlock : envBlock
        result = await runTx(vm, {
          tx,
          block: freeBlobs ? createEnvBlock(env, vm.common, block.header.baseFeePerGas, 0n) : block,
          skipNonce: !request.validation,
          skipHardForkValidation: true,
          skipBlockGasLimitValidation: true,
          blockGasUsed: builder.gasUsed,
        })
      } catch (error) {
        throw validationError(error instanceof Error ? error.message : String(error), from)
      } finally {
        stateManager.codeHiddenFor = undefined
        for (const [event, listener] of Object.entries(collector.hooks)) events!.off(event as 'step', listener as never)
      }
      if (stateNonce === MAX_NONCE) {
        // runTx counts the sender's nonce past 2^64 - 1; geth's 64-bit nonce wraps to 0.
        const account = (await stateManager.getAccount(sender))!
        account.nonce %= MAX_NONCE + 1n
        await stateManager.putAccount(sender, account)
      }
      callLogs.push(collector.logs())
      transactions.push(tx)
      sealed.add(builderTransaction(tx), result, result.blobGasUsed ?? 0n)
      gasPool -= result.totalGasSpent
      senders.push(from)
      const { execResult } = result
      const error = execResult.exceptionError?.error
      const returnData = bytesToHex(execResult.returnValue) as Hex
      const consumed = execResult.executionGasUsed + tx.getIntrinsicGas()
      calls.push({
        status: error === undefined ? 1 : 0,
        // A failed call returns nothing; a revert's data is in its error.
        returnData: error === undefined ? returnData : '0x',
        gasUsed: result.totalGasSpent,
        maxUsedGas: consumed > result.totalGasSpent ? consumed : result.totalGasSpent,
        logs: [],
        ...(error === undefined
          ? {}
          : error === 'revert'
            ? {
                error: {
                  code: 3,
                  message:
                    decodeRevertReason(returnData) === undefined ? 'execution reverted' : `execution reverted: ${decodeRevertReason(returnData)}`,
                  data: returnData,
                },
              }
            : { error: { code: -32015, message: haltReason(error) } }),
      })
    }

    const built = (await builder.build()).block
    // With the real transactions where the builder was given copies (see builderTransaction).
    const block = transactions.some((tx) => tx.nonce === MAX_NONCE)
      ? new Block(built.header, transactions, built.uncleHeaders, built.withdrawals)
      : built
    const hash = bytesToHex(block.hash()) as Hex
    simulatedHashes.set(number, block.hash())
    const receipts = sealed.results.map((result, i) => toReceipt(result, transactions[i]!, env))
    for (const [i, logs] of callLogs.entries()) {
      calls[i]!.logs = logs.map(({ index, ...entry }) => ({
        ...entry,
        blockNumber: number,
        blockHash: hash,
        blockTimestamp: timestamp,
        transactionHash: bytesToHex(keccak256(block.transactions[i]!.serialize())) as Hex,
        transactionIndex: i,
        logIndex: index,
      }))
    }
    results.push({ block: sealedBlockOf({ block, hash, number, senders, receipts }), calls })
    parent = block
  }
  return results
}
