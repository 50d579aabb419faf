import { getActivePrecompiles } from '@ethereumjs/evm'
import { createContractAddress, createAddressFromString, eoaCode7702RecoverAuthority } from '@ethereumjs/util'

import { TransactionNotAppliedError, type TransactionRejectedError } from '../errors.ts'
import { haltReason, invalidCallError } from '../gethErrors.ts'
import { requireValueCovered } from './callRunner.ts'

import type { Common } from '@ethereumjs/common'
import type { InterpreterStep } from '@ethereumjs/evm'
import type { Hex } from '../../hex.ts'
import type { AccessListEntry, AccessListResult } from '../types.ts'
import type { CallRunner } from './callRunner.ts'
import type { CallRequest, ExecutionView } from './executor.ts'

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Hex
const ADDRESS_MASK = (1n << 160n) - 1n

/** Each run can only find more of what the transaction touches; a path that keeps changing is cut off here. */
const MAX_ROUNDS = 16

const addressOf = (word: bigint): Hex => `0x${(word & ADDRESS_MASK).toString(16).padStart(40, '0')}`
const slotOf = (word: bigint): Hex => `0x${word.toString(16).padStart(64, '0')}`

/** Opcodes whose top stack item names an account they read, and the calls, whose second item does. */
const READS_ACCOUNT = new Set(['EXTCODECOPY', 'EXTCODEHASH', 'EXTCODESIZE', 'BALANCE', 'SELFDESTRUCT'])
const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])

/**
 * What a run touched, as geth's access-list tracer collects it: accounts read or called (but not those every
 * transaction has warm anyway), and the storage slots read or written, under the account that owns them.
 */
function createCollector(start: readonly AccessListEntry[], excluded: ReadonlySet<Hex>) {
  const touched = new Map<Hex, Set<Hex>>()
  const addAddress = (address: Hex) => {
    if (!touched.has(address)) touched.set(address, new Set())
  }
  const addSlot = (address: Hex, slot: Hex) => {
    addAddress(address)
    touched.get(address)!.add(slot)
  }
  for (const entry of start) {
    if (!excluded.has(entry.address)) addAddress(entry.address)
    for (const slot of entry.storageKeys) addSlot(entry.address, slot)
  }
  return {
    step(step: InterpreterStep) {
      const { stack } = step
      const name = step.opcode.name
      if ((name === 'SLOAD' || name === 'SSTORE') && stack.length >= 1) {
        addSlot(step.address.toString() as Hex, slotOf(stack[stack.length - 1]!))
      } else if (READS_ACCOUNT.has(name) && stack.length >= 1) {
        const address = addressOf(stack[stack.length - 1]!)
        if (!excluded.has(address)) addAddress(address)
      } else if (CALLS.has(name) && stack.length >= 5) {
        const address = addressOf(stack[stack.length - 2]!)
        if (!excluded.has(address)) addAddress(address)
      }
    },
    /** Accounts in address order, each with its slots in order, as geth lists them. */
    list(): AccessListEntry[] {
      return [...touched.keys()].sort().map((address) => ({ address, storageKeys: [...touched.get(address)!].sort() }))
    },
  }
}

function sameList(a: AccessListEntry[], b: AccessListEntry[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * eth_createAccessList: the EIP-2930 access list a transaction needs, found as geth finds it. The call runs with
 * the list found so far until a run touches nothing new; the answer is that list, the gas the transaction uses
 * with it, and why it failed if it did. The sender, the recipient (or the address a creation deploys to), the
 * precompiles and the authorities of valid EIP-7702 authorizations are warm in every transaction, so they are
 * left out unless a slot of theirs is touched.
 */
export async function createAccessList(runner: CallRunner, common: Common, request: CallRequest, view: ExecutionView): Promise<AccessListResult> {
  const from = request.from ?? ZERO_ADDRESS
  const nonce = request.nonce ?? view.state.account(from)?.nonce ?? 0n
  const to = request.to ?? (createContractAddress(createAddressFromString(from), nonce).toString() as Hex)
  const rules = common.copy()
  rules.setHardforkBy({ blockNumber: view.env.number, timestamp: view.env.timestamp })
  const excluded = new Set<Hex>([from, to])
  for (const address of getActivePrecompiles(rules).keys()) excluded.add(`0x${address}` as Hex)
  for (const authorization of request.authorizationList ?? []) {
    if (authorization.chainId !== 0n && authorization.chainId !== common.chainId()) continue
    try {
      const authority = eoaCode7702RecoverAuthority({
        chainId: `0x${authorization.chainId.toString(16)}`,
        address: authorization.address,
        nonce: `0x${authorization.nonce.toString(16)}`,
        yParity: `0x${authorization.yParity.toString(16)}`,
        r: `0x${authorization.r.toString(16)}`,
        s: `0x${authorization.s.toString(16)}`,
      })
      excluded.add(authority.toString() as Hex)
    } catch {
      // An authorization whose signature does not recover is skipped by the transaction too.
    }
  }

  try {
    requireValueCovered(view.state, request)
  } catch (error) {
    throw new TransactionNotAppliedError(error as TransactionRejectedError)
  }
  const gasLimit = runner.gasLimit(request, view)
  let list = createCollector(request.accessList ?? [], excluded).list()
  for (let round = 0; ; round++) {
    const collector = createCollector(list, excluded)
    const { outcome } = await runner.executor.trace({ ...request, nonce, accessList: list }, gasLimit, view, { step: collector.step })
    if (outcome.kind === 'invalid') {
      throw new TransactionNotAppliedError(invalidCallError(outcome.error, from))
    }
    const found = collector.list()
    if (sameList(found, list) || round + 1 === MAX_ROUNDS) {
      return { accessList: list, gasUsed: outcome.gasUsed, ...(outcome.kind === 'success' ? {} : { error: haltReason(outcome.error ?? 'revert') }) }
    }
    list = found
  }
}
