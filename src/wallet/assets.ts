import * as AbiParameters from 'ox/AbiParameters'
import { toString as hexToString } from 'ox/Hex'

import { ExecutionRevertedError, InvalidInputError } from '../chain/errors.ts'
import { NotAuthorizedError } from './errors.ts'

import type { Hex } from '../hex.ts'
import type { Caller, WalletCore } from './core.ts'

/** wallet_watchAsset's parameters after the schema (EIP-747). */
export type AssetRequest = { type: 'ERC20'; options: { address: Hex; symbol: string; decimals: number; image?: string } }

const SYMBOL = '0x95d89b41' // symbol()
const DECIMALS = '0x313ce567' // decimals()

/** symbol() as a string, or as the bytes32 some early tokens return; undefined when the token does not say. */
function decodeSymbol(data: Hex): string | undefined {
  try {
    return AbiParameters.decode([{ type: 'string' }], data)[0]
  } catch {
    return data.length === 66 ? hexToString(data, { size: 32 }).replace(/\0+$/, '') : undefined
  }
}

async function read(core: WalletCore, to: Hex, data: Hex): Promise<Hex | undefined> {
  try {
    const result = await core.chain.calls.call({ to, data }, 'pending')
    return `0x${Buffer.from(result).toString('hex')}` as Hex
  } catch (error) {
    // A token without symbol() or decimals() is still a token: there is nothing to compare.
    if (error instanceof ExecutionRevertedError) return undefined
    throw error
  }
}

/**
 * EIP-747: checked against the pending state (the contract must exist, and what it says about itself must match
 * the request), approved by the user, then added to the selected account's list for this chain.
 */
export async function watchAsset(core: WalletCore, caller: Caller, asset: AssetRequest): Promise<true> {
  const [account] = core.permittedAccounts(caller)
  if (account === undefined) throw new NotAuthorizedError()
  core.authorize(caller, account)
  const { address, symbol, decimals, image } = asset.options
  if (core.chain.state.code(address, 'pending') === '0x')
    throw new InvalidInputError(`options.address: no contract code at ${address}`, { input: 'asset' })

  const actualSymbol = await read(core, address, SYMBOL).then((data) => (data === undefined ? undefined : decodeSymbol(data)))
  if (actualSymbol !== undefined && actualSymbol !== symbol) {
    throw new InvalidInputError(`options.symbol: the token at ${address} says its symbol is "${actualSymbol}", not "${symbol}"`, { input: 'asset' })
  }
  const decimalsData = await read(core, address, DECIMALS)
  if (decimalsData !== undefined && decimalsData.length === 66) {
    const actualDecimals = Number(BigInt(decimalsData))
    if (actualDecimals !== decimals) {
      throw new InvalidInputError(`options.decimals: the token at ${address} says its decimals are ${actualDecimals}, not ${decimals}`, {
        input: 'asset',
      })
    }
  }

  await core.approve('wallet_watchAsset', caller, 'wallet_watchAsset', asset)
  core.store.upsertAsset(account, { address, symbol, decimals, ...(image === undefined ? {} : { image }), chainId: core.chainIdHex })
  return true
}
