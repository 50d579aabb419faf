import { formatEther, formatUnits } from 'viem'

/** `0x1234…abcd`: enough of a hash or address to tell it apart on screen. */
export function short(hex: string | null | undefined): string {
  if (hex === null || hex === undefined) return '—'
  return hex.length <= 14 ? hex : `${hex.slice(0, 6)}…${hex.slice(-4)}`
}

/** At most six decimals, without trailing zeros: a dev console wants 1.5 ETH, not 1.500000000000000000. */
function trim(decimal: string): string {
  const [whole, fraction = ''] = decimal.split('.')
  const kept = fraction.slice(0, 6).replace(/0+$/, '')
  return kept === '' ? whole! : `${whole}.${kept}`
}

export const ether = (wei: bigint | string): string => `${trim(formatEther(BigInt(wei)))} ETH`

export const units = (amount: bigint, decimals: number): string => trim(formatUnits(amount, decimals))

/** A block timestamp (seconds, hex) as the local time of day. */
export const clock = (timestamp: string): string => new Date(Number(BigInt(timestamp)) * 1000).toLocaleTimeString()

export const since = (ms: number): string => new Date(ms).toLocaleTimeString()
