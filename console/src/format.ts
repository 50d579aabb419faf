import { formatUnits, getAddress } from 'viem'

/** `0x1234…abcd`: enough of a hash or address to tell it apart on screen. */
export function short(hex: string | null | undefined): string {
  if (hex === null || hex === undefined) return '—'
  return hex.length <= 14 ? hex : `${hex.slice(0, 6)}…${hex.slice(-4)}`
}

/** Decimals shown before a value is rounded: a dev console wants 1.5 ETH, not 1.500000000000000000. */
const SHOWN_DECIMALS = 6

/**
 * An amount of a unit with `decimals`, as a person reads it at a glance: at most six decimals without trailing zeros,
 * `≈` before a value that was rounded, and `<0.000001` for one too small to show, never a zero for a value that is not.
 * The exact figure is `formatUnits`'s, which the page shows beside it on request (amount.tsx).
 */
export function rounded(amount: bigint, decimals: number): string {
  const [whole, fraction = ''] = formatUnits(amount, decimals).split('.')
  const kept = fraction.slice(0, SHOWN_DECIMALS).replace(/0+$/, '')
  if (whole === '0' && kept === '' && amount !== 0n) return `<0.${'0'.repeat(SHOWN_DECIMALS - 1)}1`
  const shown = kept === '' ? whole! : `${whole}.${kept}`
  return fraction.length > SHOWN_DECIMALS ? `≈${shown}` : shown
}

/** An address as EIP-55 spells it, so that one address reads the same in every place of the page. */
export function checksum(address: string): string {
  try {
    return getAddress(address)
  } catch {
    return address
  }
}

/** A block timestamp (seconds, hex) as the local time of day. */
export const clock = (timestamp: string): string => new Date(Number(BigInt(timestamp)) * 1000).toLocaleTimeString()

export const since = (ms: number): string => new Date(ms).toLocaleTimeString()
