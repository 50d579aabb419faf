import { Capability, getCalldataFloorGas } from '@ethereumjs/tx'
import { Account, bytesToUnprefixedHex } from '@ethereumjs/util'

import type { Block } from '@ethereumjs/block'
import type { ExecResult } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { VM } from '@ethereumjs/vm'

/** EIPs whose transaction-level rules simulateCall does not apply; with any of them active, calls go through runTx. */
const UNSUPPORTED_EIPS = [4762, 6800, 7864, 7928, 8037]

const NO_ADDRESSES: ReadonlySet<string> = new Set()
/** The addresses of each precompile map the EVM made (one per fork it was moved to). */
const precompileSets = new WeakMap<Map<string, unknown>, ReadonlySet<string>>()

/**
 * The precompiles' addresses, as a set made once per fork: warming each one for every call took 1.1 µs of an ERC20
 * transfer's estimate (in-process, paired runs).
 */
function precompileAddresses(precompiles: Map<string, unknown>): ReadonlySet<string> {
  let addresses = precompileSets.get(precompiles)
  if (addresses === undefined) precompileSets.set(precompiles, (addresses = new Set(precompiles.keys())))
  return addresses
}

/**
 * Whether the journal reads a set of shared warm addresses: a feature of the patched @ethereumjs/evm (patches/). The
 * published package lacks it, and would ignore the set.
 */
export function sharesWarmAddresses(journal: object): boolean {
  return 'sharedWarmAddresses' in journal
}

/**
 * Whether simulateCall can run `tx`: a call (not a create) of type 0, 1 or 2 that pays nothing for gas, on a fork
 * whose transaction rules it knows. Anything else (priced calls, creates, blobs, EIP-7702 authorizations) goes
 * through runTx.
 */
export function canSimulate(tx: TypedTransaction, vm: VM, priced: boolean): boolean {
  return (
    !priced &&
    tx.to !== undefined &&
    tx.type <= 2 &&
    !tx.supports(Capability.EIP7702EOACode) &&
    UNSUPPORTED_EIPS.every((eip) => !vm.common.isActivatedEIP(eip))
  )
}

export type SimulatedCall = { execResult: ExecResult; totalGasSpent: bigint }

/**
 * runTx for a free call whose writes are dropped, as geth's eth_call runs a message rather than a transaction: the
 * same checks, warm addresses, intrinsic gas, sender nonce and EIP-3529 / EIP-7623 gas accounting, without what
 * only a mined transaction needs (fee payment, the miner's reward, touched-account cleanup, the receipt and its
 * bloom). That is about a quarter of an ERC20 transfer's run. The caller resets the state afterwards. Throws what
 * runTx throws for an invalid call, in its words (execution.ts maps them to geth's).
 */
export async function simulateCall(vm: VM, tx: TypedTransaction, block: Block): Promise<SimulatedCall> {
  const { evm } = vm
  const { journal } = evm
  await journal.cleanup()
  await journal.checkpoint()
  try {
    const caller = tx.getSenderAddress()
    const to = tx.to!
    if ('accessList' in tx) {
      for (const [address, slots] of tx.accessList) {
        const hex = bytesToUnprefixedHex(address)
        journal.addAlwaysWarmAddress(hex, true)
        for (const slot of slots) journal.addAlwaysWarmSlot(hex, bytesToUnprefixedHex(slot), true)
      }
    }
    // EIP-2929: precompiles, the sender and the recipient start warm; EIP-3651: the coinbase too. The patched journal
    // reads the precompiles as one set per fork beside the addresses warmed for this call; the published one is
    // given each of them.
    if (sharesWarmAddresses(journal)) journal.sharedWarmAddresses = precompileAddresses(evm.precompiles)
    else for (const address of evm.precompiles.keys()) journal.addAlwaysWarmAddress(address)
    journal.addAlwaysWarmAddress(caller.toString())
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(to.bytes))
    if (vm.common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes))

    const intrinsicGas = tx.getIntrinsicGas()
    const floorCost = getCalldataFloorGas(tx, caller)
    const minimum = intrinsicGas > floorCost ? intrinsicGas : floorCost
    if (tx.gasLimit < minimum) {
      throw new Error(`INTRINSIC_GAS_TOO_LOW: tx gas limit ${tx.gasLimit} is lower than the minimum gas limit of ${minimum}`)
    }

    // No EIP-3607 check: geth's eth_call and eth_estimateGas may run from an address with code (SkipFromEOACheck).
    const sender = (await vm.stateManager.getAccount(caller)) ?? new Account()
    // Nothing is paid for gas; runTx's skipBalance tops the sender up to the value it sends.
    if (sender.balance < tx.value) sender.balance = tx.value
    sender.nonce += 1n
    await journal.putAccount(caller, sender)

    await journal.checkpoint()
    let execResult: ExecResult
    try {
      ;({ execResult } = await evm.runCall({
        block,
        gasPrice: 0n,
        caller,
        origin: caller,
        gasLimit: tx.gasLimit - intrinsicGas,
        to,
        value: tx.value,
        data: tx.data,
        skipNonceIncrement: true,
      }))
    } catch (error) {
      await journal.revert()
      throw error
    }
    await journal.commit()

    // EIP-3529: refunds are capped at a fifth of the gas used; EIP-7623: the calldata floor is the least charged.
    const used = execResult.executionGasUsed + intrinsicGas
    const refund = execResult.gasRefund ?? 0n
    const maxRefund = used / vm.common.param('maxRefundQuotient')
    let totalGasSpent = used - (refund < maxRefund ? refund : maxRefund)
    if (vm.common.isActivatedEIP(7623) && totalGasSpent < floorCost) totalGasSpent = floorCost
    return { execResult, totalGasSpent }
  } finally {
    if (sharesWarmAddresses(journal)) journal.sharedWarmAddresses = NO_ADDRESSES
    journal.cleanJournal()
    vm.stateManager.originalStorageCache.clear()
  }
}
