import { useState } from 'preact/hooks'

import { Amount } from '../amount.tsx'
import { short, since } from '../format.ts'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { AddressLink, Failure, Section, TxLink } from '../ui.tsx'
import { useAccounts } from './Accounts.tsx'
import { ApprovalQueue } from './Approvals.tsx'
import { PolicyEditor } from './Policy.tsx'

import type { Hex } from 'viem'

/** EIP-5792's status codes, as wallet_getCallsStatus answers them. */
const statusNames: Record<number, string> = { 100: 'pending', 200: 'confirmed', 400: 'failed offchain', 500: 'reverted', 600: 'partially reverted' }

const BATCHES_SHOWN = 10

function Batches() {
  const batches = useQuery(
    async () => {
      const list = await rpc('flashchain_getBatches', [{ limit: BATCHES_SHOWN }])
      const statuses = await Promise.all(list.map((batch) => rpc('wallet_getCallsStatus', [batch.id]).catch(() => undefined)))
      return list.map((batch, i) => ({ batch, receipts: statuses[i]?.receipts ?? [] }))
    },
    [],
    1000,
  )
  return (
    <Section title="Batches (EIP-5792)" testid="batches">
      <Failure error={batches.error} />
      {batches.data?.length === 0 ? (
        <p class="muted">no batches yet</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>id</th>
              <th>from</th>
              <th>status</th>
              <th>atomic</th>
              <th>calls</th>
              <th>receipts</th>
              <th>sent</th>
            </tr>
          </thead>
          <tbody>
            {batches.data?.map(({ batch, receipts }) => (
              <tr key={batch.id} data-testid="batch-row" data-id={batch.id} data-status={batch.status}>
                <td class="mono" title={batch.id}>
                  {short(batch.id)}
                </td>
                <td>
                  <AddressLink address={batch.from} />
                </td>
                <td>
                  <span class={`badge status-${batch.status}`}>
                    {batch.status} {statusNames[batch.status]}
                  </span>
                </td>
                <td>{batch.atomic ? 'yes' : 'no'}</td>
                <td>{batch.calls.length}</td>
                <td>
                  {receipts.map((receipt) => (
                    <div key={receipt.transactionHash}>
                      <TxLink hash={receipt.transactionHash} /> {receipt.status === '0x1' ? 'ok' : 'reverted'}, gas{' '}
                      {BigInt(receipt.gasUsed).toString()}
                    </div>
                  ))}
                </td>
                <td>{since(batch.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  )
}

/** balanceOf(account), encoded by hand: one selector and one padded word need no encoder. */
const balanceOfData = (account: Hex) => `0x70a08231${account.slice(2).toLowerCase().padStart(64, '0')}`

function WatchedTokens() {
  const accounts = useAccounts()
  const tokens = useQuery(
    () =>
      Promise.all(
        (accounts.data ?? []).map(async (account) => {
          const assets = await rpc('flashchain_getWatchedAssets', [account])
          const balances = await Promise.all(
            assets.map((asset) => rpc('eth_call', [{ to: asset.address, data: balanceOfData(account) }, 'pending']).then(BigInt, () => undefined)),
          )
          return assets.map((asset, i) => ({ account, asset, balance: balances[i] }))
        }),
      ).then((lists) => lists.flat()),
    [accounts.data],
    2000,
  )
  return (
    <Section title="Watched tokens (EIP-747)" testid="tokens">
      <Failure error={accounts.error ?? tokens.error} />
      {tokens.data?.length === 0 && <p class="muted">no tokens watched</p>}
      <table>
        {tokens.data !== undefined && tokens.data.length > 0 && (
          <thead>
            <tr>
              <th>account</th>
              <th>token</th>
              <th>contract</th>
              <th>balance (pending)</th>
            </tr>
          </thead>
        )}
        <tbody>
          {tokens.data?.map(({ account, asset, balance }) => (
            <tr
              key={`${account}:${asset.address}`}
              data-testid="token-row"
              data-token={asset.address.toLowerCase()}
              data-account={account.toLowerCase()}
            >
              <td>
                <AddressLink address={account} />
              </td>
              <td>
                <b>{asset.symbol}</b> <span class="muted">{asset.decimals} decimals</span>
              </td>
              <td>
                <AddressLink address={asset.address} />
              </td>
              <td data-testid="token-balance">
                {balance === undefined ? (
                  <span class="muted">balanceOf failed</span>
                ) : (
                  <Amount value={balance} decimals={asset.decimals} symbol={asset.symbol} base="base units" />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

/** A grant's accounts in the wallet's order (account 0 first), as the Accounts view lists them; others after. */
function inWalletOrder(granted: string[], wallet: string[] | undefined): string[] {
  const position = new Map((wallet ?? []).map((account, i) => [account.toLowerCase(), i]))
  const rank = (account: string) => position.get(account.toLowerCase()) ?? Number.MAX_SAFE_INTEGER
  return [...granted].sort((a, b) => rank(a) - rank(b))
}

function Grants() {
  const accounts = useAccounts()
  const grants = useQuery(() => rpc('flashchain_getGrants'), [], 2000)
  const [error, setError] = useState<string>()
  const revoke = async (origin: string) => {
    try {
      await rpc('flashchain_revokeGrant', [origin])
      setError(undefined)
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason))
    }
    grants.reload()
  }
  return (
    <Section title="Origins with access" testid="grants">
      <Failure error={grants.error ?? error} />
      {grants.data?.length === 0 && <p class="muted">no site has been granted accounts</p>}
      <table>
        {grants.data !== undefined && grants.data.length > 0 && (
          <thead>
            <tr>
              <th>origin</th>
              <th>accounts</th>
              <th>granted</th>
              <th />
            </tr>
          </thead>
        )}
        <tbody>
          {grants.data?.map((grant) => (
            <tr key={grant.origin} data-testid="grant-row" data-origin={grant.origin}>
              <td>{grant.origin}</td>
              <td>
                <ul class="addresses" aria-label={`accounts granted to ${grant.origin}`}>
                  {inWalletOrder(grant.accounts, accounts.data).map((account) => (
                    <li key={account} data-testid="grant-account">
                      <AddressLink address={account} />
                    </li>
                  ))}
                </ul>
              </td>
              <td>{since(grant.grantedAt)}</td>
              <td>
                <button type="button" aria-label={`Revoke ${grant.origin}`} onClick={() => revoke(grant.origin)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

export function Wallet() {
  return (
    <div data-testid="view-wallet" class="columns">
      <div>
        <ApprovalQueue />
        <PolicyEditor />
        <Grants />
      </div>
      <div>
        <Batches />
        <WatchedTokens />
      </div>
    </div>
  )
}
