/**
 * Amounts as a wallet's approval screen shows them: rounded for reading, never a zero for a value that is not, and the
 * exact figure in base units on hover (title) and on a click, which keeps it on screen beside the rounded one.
 */
import { useState } from 'preact/hooks'
import { formatUnits } from 'viem'

import { rounded } from './format.ts'
import { useToken } from './tokens.ts'

import type { Hex } from 'viem'

type AmountProps = { value: bigint; decimals: number; symbol: string; base: string }

export function Amount({ value, decimals, symbol, base }: AmountProps) {
  const [open, setOpen] = useState(false)
  const exact = `${value} ${base}`
  const whole = `${formatUnits(value, decimals)} ${symbol}`
  return (
    <span class="amount" data-testid="amount" data-value={value.toString()}>
      <button type="button" title={`${exact} (${whole})`} aria-expanded={open} onClick={() => setOpen(!open)}>
        {rounded(value, decimals)} {symbol}
      </button>
      {open && (
        <span class="exact" data-testid="amount-exact">
          {' '}
          = {exact}
          {decimals > 0 && `, ${whole}`}
        </span>
      )}
    </span>
  )
}

export const Ether = ({ wei }: { wei: bigint | string }) => <Amount value={BigInt(wei)} decimals={18} symbol="ETH" base="wei" />

/** Fees per gas, as wallets and explorers quote them. */
export const Gwei = ({ wei }: { wei: bigint | string }) => <Amount value={BigInt(wei)} decimals={9} symbol="gwei" base="wei" />

/** An ERC-20 amount with the token's decimals and symbol; in base units while they are unknown or the contract has none. */
export function TokenAmount({ token, value }: { token: Hex; value: bigint }) {
  const info = useToken(token)
  if (info === undefined || info === null) {
    return (
      <span class="mono" title={info === null ? 'base units: the contract answers no decimals()' : 'base units'}>
        {value.toString()}
      </span>
    )
  }
  return <Amount value={value} decimals={info.decimals} symbol={info.symbol} base="base units" />
}
