import { bytesToBigInt, hexToBytes } from '@ethereumjs/util'

import { InvalidParamsError } from '../../errors.ts'

import type { Hex } from '../../hex.ts'
import type { ResolvedBlock } from '../blocks/tags.ts'
import type { Calls } from './calls.ts'

const BALANCE_OF = '0x70a08231'

/** A value no real balance holds, written in turn to each slot balanceOf reads, to see which one it reports. */
const PROBE = 0x1337_f00d_cafe_d00d_1337_f00d_cafe_d00d_1337_f00d_cafe_d00dn

const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}` as Hex

/**
 * Where an ERC20 keeps `account`'s balance, found as anvil_dealERC20 finds it: run balanceOf(account), watch which
 * storage slots it reads (of the token, or of whatever it delegates to), and take the one that balanceOf reports
 * back once it is changed. Works for any layout whose balance is a whole slot: Solidity and Vyper mappings,
 * ERC-7201 namespaces and proxies alike.
 */
export async function findBalanceSlot(calls: Calls, block: ResolvedBlock, token: Hex, account: Hex): Promise<{ address: Hex; slot: Hex }> {
  const request = { to: token, data: `${BALANCE_OF}${account.slice(2).padStart(64, '0')}` as Hex }
  const reads = await calls.storageReads(request, block)
  // The balance is read last, after whatever a proxy reads to find its implementation.
  for (const read of reads.toReversed()) {
    const overrides = { state: { [read.address]: { stateDiff: { [read.slot]: word(PROBE) } } } }
    const answer = await calls.call(request, block, overrides)
    if (answer.length === 32 && bytesToBigInt(answer) === PROBE) return read
  }
  throw new InvalidParamsError(
    reads.length === 0
      ? `${token}'s balanceOf reads no storage: it is not an ERC20 this can set a balance of`
      : `none of the ${reads.length} storage slots ${token}'s balanceOf reads holds the balance whole`,
  )
}

export const balanceWord = (amount: bigint): Uint8Array => hexToBytes(word(amount))
