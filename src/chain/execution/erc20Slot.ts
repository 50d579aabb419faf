import { bytesToBigInt, hexToBytes } from '@ethereumjs/util'

import { InvalidInputError } from '../errors.ts'

import type { Hex } from '../../hex.ts'
import type { ResolvedBlock } from '../blocks/tags.ts'
import type { Calls } from './calls.ts'

/** A value no real balance or allowance holds, written in turn to each slot a getter reads, to see which it reports. */
const PROBE = 0x1337_f00d_cafe_d00d_1337_f00d_cafe_d00d_1337_f00d_cafe_d00dn

const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}` as Hex
const addressWord = (address: Hex) => address.slice(2).padStart(64, '0')

/** The ERC20 getters whose slot the test-control methods find: what each is called with, and its name in errors. */
export type ERC20Getter = { name: 'balanceOf'; account: Hex } | { name: 'allowance'; owner: Hex; spender: Hex }

function calldataOf(getter: ERC20Getter): Hex {
  // balanceOf(address) and allowance(address,address) (EIP-20).
  return getter.name === 'balanceOf'
    ? (`0x70a08231${addressWord(getter.account)}` as Hex)
    : (`0xdd62ed3e${addressWord(getter.owner)}${addressWord(getter.spender)}` as Hex)
}

/**
 * Where an ERC20 keeps what a getter answers (a balance, an allowance), found as anvil_dealERC20 and
 * anvil_setERC20Allowance find it: run the getter, watch which storage slots it reads (of the token, or of whatever
 * it delegates to), and take the one that the getter reports back once it is changed. Works for any layout whose
 * value is a whole slot: Solidity and Vyper mappings, ERC-7201 namespaces and proxies alike.
 */
export async function findERC20Slot(calls: Calls, block: ResolvedBlock, token: Hex, getter: ERC20Getter): Promise<{ address: Hex; slot: Hex }> {
  const request = { to: token, data: calldataOf(getter) }
  const reads = await calls.storageReads(request, block)
  // The value is read last, after whatever a proxy reads to find its implementation.
  for (const read of reads.toReversed()) {
    const overrides = { state: { [read.address]: { stateDiff: { [read.slot]: word(PROBE) } } } }
    const answer = await calls.call(request, block, overrides).catch(() => undefined)
    if (answer?.length === 32 && bytesToBigInt(answer) === PROBE) return read
  }
  const what = getter.name === 'balanceOf' ? 'balance' : 'allowance'
  throw new InvalidInputError(
    reads.length === 0
      ? `${token}'s ${getter.name} reads no storage: it is not an ERC20 whose ${what} this can set`
      : `none of the ${reads.length} storage slots ${token}'s ${getter.name} reads holds the ${what} whole`,
  )
}

export const erc20Word = (amount: bigint): Uint8Array => hexToBytes(word(amount))
