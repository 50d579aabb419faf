import { delegateOf, EXECUTOR } from '../abi.ts'
import { Ether } from '../amount.tsx'
import { checksum } from '../format.ts'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { AddressLink, Failure, Section } from '../ui.tsx'
import { AddressTransactions } from './AddressTransactions.tsx'

import type { Hex } from 'viem'

export type AccountState = { balance: { latest: bigint; pending: bigint }; nonce: { latest: bigint; pending: bigint }; code: Hex }

/** Balance and nonce at latest and pending, and the code at pending: everything an account row shows. */
export async function loadAccount(address: Hex): Promise<AccountState> {
  const [latest, pending, nonceLatest, noncePending, code] = await Promise.all([
    rpc('eth_getBalance', [address, 'latest']),
    rpc('eth_getBalance', [address, 'pending']),
    rpc('eth_getTransactionCount', [address, 'latest']),
    rpc('eth_getTransactionCount', [address, 'pending']),
    rpc('eth_getCode', [address, 'pending']),
  ])
  return {
    balance: { latest: BigInt(latest), pending: BigInt(pending) },
    nonce: { latest: BigInt(nonceLatest), pending: BigInt(noncePending) },
    code,
  }
}

/** What the code says about an account: none, an EIP-7702 delegation (0xef0100 ‖ delegate), or a contract. */
export function CodeSummary({ code }: { code: Hex }) {
  if (code === '0x') return <span class="muted">none</span>
  const delegate = delegateOf(code)
  if (delegate !== undefined) {
    return (
      <span data-testid="delegation">
        delegated to <AddressLink address={delegate} />
        {delegate.toLowerCase() === EXECUTOR && <span class="muted"> (batch executor)</span>}
      </span>
    )
  }
  return <span>contract, {(code.length - 2) / 2} bytes</span>
}

export function AddressDetail({ address }: { address: Hex }) {
  const account = useQuery(() => loadAccount(address), [address], 2000)
  const data = account.data
  return (
    <Section title="Account" testid="address-detail">
      <p class="mono" data-testid="address">
        {checksum(address)}
      </p>
      <Failure error={account.error} />
      {data && (
        <dl class="fields">
          <dt>balance</dt>
          <dd>
            <Ether wei={data.balance.latest} /> <span class="muted">latest</span> · <Ether wei={data.balance.pending} />{' '}
            <span class="muted">pending</span>
          </dd>
          <dt>nonce</dt>
          <dd>
            {data.nonce.latest.toString()} <span class="muted">latest</span> · {data.nonce.pending.toString()} <span class="muted">pending</span>
          </dd>
          <dt>code</dt>
          <dd>
            <CodeSummary code={data.code} />
          </dd>
        </dl>
      )}
      <AddressTransactions address={address} />
    </Section>
  )
}
