import { decodeCall } from './abi.ts'
import { Ether, TokenAmount } from './amount.tsx'
import { checksum, short } from './format.ts'

import type { ComponentChildren } from 'preact'
import type { Hex } from 'viem'
import type { DecodedCall, DecodedLog } from './abi.ts'

export const TxLink = ({ hash }: { hash: string }) => (
  <a class="mono" href={`#/tx/${hash}`} title={hash}>
    {short(hash)}
  </a>
)

export const BlockLink = ({ number }: { number: bigint | string }) => <a href={`#/block/${BigInt(number)}`}>#{BigInt(number).toString()}</a>

export function AddressLink({ address }: { address: string | null | undefined }) {
  if (address === null || address === undefined) return <span class="muted">—</span>
  const spelled = checksum(address)
  return (
    <a class="mono" href={`#/address/${spelled}`} title={spelled}>
      {short(spelled)}
    </a>
  )
}

/** A receipt's outcome; a transaction without a receipt is still in the pool. */
export function TxStatus({ status }: { status: string | null | undefined }) {
  if (status === null || status === undefined) return <span class="badge">pending</span>
  return (
    <span class={`badge ${status === '0x1' ? 'ok' : 'failed'}`} data-testid="status">
      {status === '0x1' ? 'success' : 'reverted'}
    </span>
  )
}

export const Failure = ({ error }: { error: string | undefined }) => (error === undefined ? null : <p class="error">{error}</p>)

export const Section = ({ title, children, testid }: { title: string; children: ComponentChildren; testid?: string }) => (
  <section data-testid={testid}>
    <h2>{title}</h2>
    {children}
  </section>
)

/** An argument as a person reads it: addresses linked, numbers in decimal, bytes shortened. */
export function Value({ value }: { value: unknown }) {
  if (typeof value === 'bigint') return <span class="mono">{value.toString()}</span>
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) return <AddressLink address={value} />
  if (typeof value === 'string' && value.startsWith('0x')) {
    return (
      <span class="mono" title={value}>
        {short(value)}
      </span>
    )
  }
  if (Array.isArray(value)) {
    return (
      <span>
        [
        {value.map((item, i) => (
          <span key={i}>
            {i > 0 && ', '}
            <Value value={item} />
          </span>
        ))}
        ]
      </span>
    )
  }
  return <span class="mono">{String(value)}</span>
}

/**
 * `transfer(to: 0x12…, amount: 5 USDC)`, and the calls of an ERC-7821 execute beneath it unless `inner` is false.
 * `contract` is the called contract or the log's emitter: an ERC-20 amount is read with its token's decimals.
 */
export function Decoded({ decoded, contract, inner = true }: { decoded: DecodedCall | DecodedLog; contract?: string | null; inner?: boolean }) {
  return (
    <span class="decoded">
      <b>{decoded.name}</b>(
      {decoded.args.map(({ name, value }, i) => (
        <span key={name}>
          {i > 0 && ', '}
          <span class="muted">{name}:</span>{' '}
          {i === decoded.amount && typeof value === 'bigint' && contract ? (
            <TokenAmount token={contract as Hex} value={value} />
          ) : (
            <Value value={value} />
          )}
        </span>
      ))}
      )
      {inner && 'inner' in decoded && decoded.inner !== undefined && (
        <ol class="inner">
          {decoded.inner.map((call, i) => (
            <li key={i}>
              <AddressLink address={call.to} /> {call.value > 0n && <Ether wei={call.value} />} <CallData data={call.data} to={call.to} />
            </li>
          ))}
        </ol>
      )}
    </span>
  )
}

/** Calldata decoded where a known ABI has it, else its selector and size; `to` is the contract it calls. */
export function CallData({ data, to, inner = true }: { data: string | undefined; to: string | null | undefined; inner?: boolean }) {
  if (data === undefined || data === '0x') return null
  const decoded = decodeCall(data as `0x${string}`)
  if (decoded !== undefined) return <Decoded decoded={decoded} contract={to} inner={inner} />
  return (
    <span class="mono muted" title={data}>
      {data.slice(0, 10)} ({(data.length - 2) / 2} bytes)
    </span>
  )
}
