import { Bloom, encodeReceipt, runTx } from '@ethereumjs/vm'
import { Account, bigIntToBytes, bigIntToUnpaddedBytes, bytesToBigInt, createAddressFromString, setLengthLeft } from '@ethereumjs/util'

import { encodeReceiptFields } from '../blocks/encoding.ts'
import { DEPOSIT_TX_TYPE, asDeposit } from './deposit.ts'
import { l1Cost, l1FeeParamsFromSlots, operatorFee } from './l1Cost.ts'
import { BASE_FEE_VAULT, L1_BLOCK, L1_FEE_VAULT, OPERATOR_FEE_VAULT } from './addresses.ts'

import type { Block } from '@ethereumjs/block'
import type { Address } from '@ethereumjs/util'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { RunTxOpts, RunTxResult, VM } from '@ethereumjs/vm'
import type { DepositTransaction } from './deposit.ts'
import type { L1FeeParams } from './l1Cost.ts'
import type { L1Fee } from '../types.ts'

/** What a transaction's run on an OP Stack chain reports beyond runTx's: the deposit's nonce, or the L1 fee it paid. */
export type RollupRunResult = RunTxResult & { depositNonce?: bigint; l1Fee?: L1Fee }

const l1BlockAddress = createAddressFromString(L1_BLOCK)
const slotKey = (slot: number) => setLengthLeft(bigIntToBytes(BigInt(slot)), 32)
const L1_FEE_SLOTS = [1, 3, 7, 8].map(slotKey)

/** The L1 values L1Block holds now (slots 1, 3, 7 and 8), which every fee of the transaction run next is computed from. */
export async function readL1FeeParams(vm: VM): Promise<L1FeeParams> {
  const [slot1, slot3, slot7, slot8] = await Promise.all(
    L1_FEE_SLOTS.map(async (key) => bytesToBigInt(await vm.stateManager.getStorage(l1BlockAddress, key))),
  )
  return l1FeeParamsFromSlots(slot1!, slot3!, slot7!, slot8!)
}

/**
 * Runs one transaction of a block on an OP Stack chain, as op-geth's state transition does: a deposit by the
 * deposit rules (runDeposit); any other through runTx, paying the L1 data fee and the operator fee besides its gas.
 */
export function runRollupTransaction(vm: VM, opts: RunTxOpts & { block: Block; blockGasUsed: bigint }): Promise<RollupRunResult> {
  const deposit = asDeposit(opts.tx)
  if (deposit !== undefined) return runDeposit(vm, deposit, opts.block, opts.blockGasUsed)
  return runWithL1Fee(vm, opts)
}

/**
 * runTx, with the OP Stack's fees around it (specs, exec-engine.md "Fee Vaults"). The sender must afford the L1 data
 * fee of the signed envelope and the operator fee of the whole gas limit beside gas and value, as op-geth's buyGas
 * checks; both are taken before the run. After it, the operator fee of the gas not used is given back, and the base fee,
 * which Ethereum burns, goes to the BaseFeeVault, the L1 fee to the L1FeeVault, the operator fee to its vault. The
 * tip goes to the block's coinbase, the SequencerFeeVault, as runTx pays it.
 */
async function runWithL1Fee(vm: VM, opts: RunTxOpts & { block: Block }): Promise<RollupRunResult> {
  const { tx, block } = opts
  const params = await readL1FeeParams(vm)
  const l1 = l1Cost(tx.serialize(), params)
  const upfrontOperatorFee = operatorFee(tx.gasLimit, params)
  const sender = tx.getSenderAddress()
  const account = (await vm.stateManager.getAccount(sender)) ?? new Account()
  const upfront = l1.fee + upfrontOperatorFee
  // op-geth's balance check counts the L1 and operator fees beside gas and value; in runTx's words, which
  // gethErrors.ts reads as geth's "insufficient funds for gas * price + value". Once it passes, runTx's own passes.
  const cost = upfront + tx.gasLimit * maxGasPrice(tx) + tx.value
  if (account.balance < cost) {
    throw new Error(
      `sender doesn't have enough funds to send tx. The upfront cost is: ${cost} and the sender's account (${sender}) only has: ${account.balance}`,
    )
  }
  if (upfront > 0n) {
    account.balance -= upfront
    await vm.stateManager.putAccount(sender, account)
  }
  const result = await runTx(vm, opts)
  const gasUsed = result.totalGasSpent
  const finalOperatorFee = operatorFee(gasUsed, params)
  await credit(vm, sender, upfrontOperatorFee - finalOperatorFee)
  await credit(vm, BASE_FEE_VAULT_ADDRESS, gasUsed * (block.header.baseFeePerGas ?? 0n))
  await credit(vm, L1_FEE_VAULT_ADDRESS, l1.fee)
  await credit(vm, OPERATOR_FEE_VAULT_ADDRESS, finalOperatorFee)
  return {
    ...result,
    l1Fee: { fee: l1.fee, gasUsed: l1.gasUsed, ...params },
  }
}

const BASE_FEE_VAULT_ADDRESS = createAddressFromString(BASE_FEE_VAULT)
const L1_FEE_VAULT_ADDRESS = createAddressFromString(L1_FEE_VAULT)
const OPERATOR_FEE_VAULT_ADDRESS = createAddressFromString(OPERATOR_FEE_VAULT)

const maxGasPrice = (tx: TypedTransaction) => ('maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice)

async function credit(vm: VM, address: Address, amount: bigint): Promise<void> {
  if (amount === 0n) return
  const account = (await vm.stateManager.getAccount(address)) ?? new Account()
  account.balance += amount
  await vm.stateManager.putAccount(address, account)
}

/**
 * Runs a deposit by the OP Stack's rules (specs, deposits.md "Execution"; op-geth's state transition): `mint` is
 * added to the sender first and kept whatever happens; then, with no signature, nonce check or fee, the call or
 * creation runs with the deposit's gas, its sender's nonce moving on as any transaction's does. One that cannot
 * start (gas below the intrinsic cost, a value above the balance) fails with its whole gas limit used; one that
 * reverts or runs out of gas fails as any transaction does. No gas is bought, so none is refunded and no one is
 * paid; the gas it used counts against the block's.
 */
export async function runDeposit(vm: VM, tx: DepositTransaction, block: Block, blockGasUsed: bigint): Promise<RollupRunResult> {
  const { journal } = vm.evm
  await journal.cleanup()
  await journal.checkpoint()
  try {
    const sender = (await vm.stateManager.getAccount(tx.from)) ?? new Account()
    sender.balance += tx.mint
    const depositNonce = sender.nonce
    sender.nonce += 1n
    await journal.putAccount(tx.from, sender)
    tx.nonce = depositNonce
    const intrinsic = intrinsicGas(vm, tx)
    const floor = calldataFloor(vm, tx)
    let result: RollupRunResult
    // What cannot start fails whole: a system transaction (none since Regolith), too little gas for the intrinsic
    // cost or EIP-7623's floor, a value above the balance.
    if (tx.isSystemTx || tx.gasLimit < intrinsic || tx.gasLimit < floor || sender.balance < tx.value) {
      result = outcome(vm, { gasUsed: tx.gasLimit, failed: true, logs: [] }, blockGasUsed)
    } else {
      warm(vm, tx, block)
      const run = await vm.evm.runCall({
        block,
        gasPrice: 0n,
        caller: tx.from,
        gasLimit: tx.gasLimit - intrinsic,
        to: tx.to,
        value: tx.value,
        data: tx.data,
        skipNonceIncrement: true,
      })
      let gasUsed = intrinsic + run.execResult.executionGasUsed
      const refund = run.execResult.gasRefund ?? 0n
      const cap = gasUsed / vm.common.param('maxRefundQuotient')
      gasUsed -= refund < cap ? refund : cap
      if (gasUsed < floor) gasUsed = floor
      await destroySelfdestructed(vm, run.execResult)
      const failed = run.execResult.exceptionError !== undefined
      result = {
        ...outcome(vm, { gasUsed, failed, logs: run.execResult.logs ?? [] }, blockGasUsed),
        execResult: run.execResult,
        createdAddress: run.createdAddress,
      }
    }
    result.depositNonce = depositNonce
    // EIP-161: the accounts the run touched and left empty go, as at the end of runTx.
    await journal.cleanup()
    await journal.commit()
    return result
  } catch (error) {
    await journal.revert()
    throw error
  } finally {
    journal.cleanJournal()
    vm.evm.stateManager.originalStorageCache.clear()
  }
}

/**
 * The accounts the run self-destructed go, as runTx ends a transaction: since EIP-6780 only those it created. (The
 * forks after Osaka that change this are not ones the chain runs.)
 */
async function destroySelfdestructed(vm: VM, run: Awaited<ReturnType<VM['evm']['runCall']>>['execResult']): Promise<void> {
  for (const address of run.selfdestruct?.keys() ?? []) {
    if (vm.common.isActivatedEIP(6780) && !run.createdAddresses?.has(address)) continue
    await vm.evm.journal.deleteAccount(createAddressFromString(address))
  }
}

/** A deposit's result as runTx would report a run: its gas, logs and bloom, and a receipt with no fee paid. */
function outcome(
  vm: VM,
  run: { gasUsed: bigint; failed: boolean; logs: NonNullable<RunTxResult['execResult']['logs']> },
  blockGasUsed: bigint,
): RollupRunResult {
  const bloom = new Bloom(undefined, vm.common)
  for (const [address, topics] of run.logs) {
    bloom.add(address)
    for (const topic of topics) bloom.add(topic)
  }
  return {
    execResult: {
      executionGasUsed: run.gasUsed,
      returnValue: new Uint8Array(0),
      logs: run.logs,
      ...(run.failed ? { exceptionError: { error: 'deposit failed', errorType: 'EvmError' } as never } : {}),
    },
    totalGasSpent: run.gasUsed,
    blockGasSpent: run.gasUsed,
    amountSpent: 0n,
    minerValue: 0n,
    gasRefund: 0n,
    bloom,
    receipt: { status: run.failed ? 0 : 1, cumulativeBlockGasUsed: blockGasUsed + run.gasUsed, bitvector: bloom.bitvector, logs: run.logs },
  } as unknown as RollupRunResult
}

/**
 * Intrinsic gas as any transaction's without an access list or authorizations: 21,000, 4 per zero byte and 16 per
 * other byte of calldata, and for a creation 32,000 and (EIP-3860) 2 per word of initcode. These are the costs of
 * every fork the chain runs (London to Osaka).
 */
function intrinsicGas(vm: VM, tx: DepositTransaction): bigint {
  let gas = 21_000n
  for (const byte of tx.data) gas += byte === 0 ? 4n : 16n
  if (tx.to === undefined) {
    gas += 32_000n
    if (vm.common.isActivatedEIP(3860)) gas += 2n * BigInt(Math.ceil(tx.data.length / 32))
  }
  return gas
}

/** EIP-7623's floor, where it is in force: 21,000 and 10 per token of calldata (a zero byte is 1, any other 4). */
function calldataFloor(vm: VM, tx: DepositTransaction): bigint {
  if (!vm.common.isActivatedEIP(7623)) return 0n
  let tokens = 0n
  for (const byte of tx.data) tokens += byte === 0 ? 1n : 4n
  return 21_000n + tokens * 10n
}

/** EIP-2929's warm set at the start of a run: the precompiles, the sender, the recipient and (EIP-3651) the coinbase. */
function warm(vm: VM, tx: DepositTransaction, block: Block): void {
  if (!vm.common.isActivatedEIP(2929)) return
  const { journal } = vm.evm
  for (const [address] of vm.evm.precompiles.entries()) journal.addAlwaysWarmAddress(address)
  journal.addAlwaysWarmAddress(tx.from.toString())
  if (tx.to !== undefined) journal.addAlwaysWarmAddress(tx.to.toString())
  if (vm.common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(block.header.coinbase.toString())
}

/**
 * A run's receipt in the receipts trie: as ethereumjs encodes it, and a deposit's as from Canyon,
 * `0x7E ‖ rlp([status, cumulativeGasUsed, bloom, logs, depositNonce, depositReceiptVersion])`.
 */
export function encodeRunReceipt(result: RunTxResult | RollupRunResult, type: number): Uint8Array {
  const { depositNonce } = result as RollupRunResult
  if (type !== DEPOSIT_TX_TYPE || depositNonce === undefined) return encodeReceipt(result.receipt, type as Parameters<typeof encodeReceipt>[1])
  const receipt = result.receipt as RunTxResult['receipt'] & { status: 0 | 1 }
  const outcome = receipt.status === 1 ? Uint8Array.of(1) : new Uint8Array(0)
  const fields = [outcome, bigIntToUnpaddedBytes(receipt.cumulativeBlockGasUsed), receipt.bitvector, receipt.logs as NestedLogs]
  return encodeReceiptFields(DEPOSIT_TX_TYPE, fields, { nonce: depositNonce, version: 1 })
}

type NestedLogs = Parameters<typeof encodeReceiptFields>[1]
