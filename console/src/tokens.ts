/**
 * What the page knows of an ERC-20 token to show its amounts: `decimals()` and `symbol()`, read once per token
 * through eth_call and kept for the page's life. A contract that answers neither (an ERC-721, an account without
 * code) is remembered as not a token; a request that failed on the way is asked again next time.
 */
import { decodeAbiParameters, hexToString } from 'viem'

import { useQuery } from './query.ts'
import { RpcError, rpc } from './rpc.ts'

import type { Hex } from 'viem'

export type TokenInfo = { decimals: number; symbol: string }

/** The selectors of `decimals()` and `symbol()`: two words need no encoder. */
const DECIMALS = '0x313ce567'
const SYMBOL = '0x95d89b41'

const known = new Map<string, Promise<TokenInfo | null>>()

/** A symbol as ERC-20 returns it, a string, or as the early tokens did (MKR), a zero-padded bytes32. */
function decodeSymbol(data: Hex): string {
  if (data.length === 66) return hexToString(data).replace(/\0+$/, '')
  return decodeAbiParameters([{ type: 'string' }], data)[0]
}

function decodeDecimals(data: Hex): number | undefined {
  if (data.length !== 66) return undefined
  const decimals = BigInt(data)
  return decimals <= 255n ? Number(decimals) : undefined
}

async function readToken(address: Hex): Promise<TokenInfo | null> {
  // Read at pending: a token is shown as soon as its transactions pre-confirm, before its block seals.
  const [decimals, symbol] = await Promise.all([
    rpc('eth_call', [{ to: address, data: DECIMALS }, 'pending']),
    rpc('eth_call', [{ to: address, data: SYMBOL }, 'pending']),
  ])
  const places = decodeDecimals(decimals)
  if (places === undefined) return null
  try {
    return { decimals: places, symbol: decodeSymbol(symbol) }
  } catch {
    return null
  }
}

export function tokenInfo(address: Hex): Promise<TokenInfo | null> {
  const key = address.toLowerCase()
  let found = known.get(key)
  if (found === undefined) {
    found = readToken(address).catch((error: unknown) => {
      // The node answered, with a revert: not a token. Anything else is the way there, which may work next time.
      if (!(error instanceof RpcError)) known.delete(key)
      return null
    })
    known.set(key, found)
  }
  return found
}

/** The token's decimals and symbol; undefined while asking, null for a contract that is not an ERC-20 token. */
export const useToken = (address: Hex): TokenInfo | null | undefined => useQuery(() => tokenInfo(address), [address.toLowerCase()]).data
