import { Ether } from '../amount.tsx'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { AddressLink, Failure, Section } from '../ui.tsx'
import { CodeSummary, loadAccount } from './Address.tsx'

/** The wallet's accounts, as the owner sees them: eth_accounts without an Origin of another site. */
export const useAccounts = () => useQuery(() => rpc('eth_accounts'), [])

export function Accounts() {
  const accounts = useAccounts()
  const states = useQuery(() => Promise.all((accounts.data ?? []).map(loadAccount)), [accounts.data], 2000)
  return (
    <Section title="Wallet accounts" testid="view-accounts">
      <Failure error={accounts.error ?? states.error} />
      <table>
        <thead>
          <tr>
            <th>account</th>
            <th>balance latest</th>
            <th>balance pending</th>
            <th>nonce latest</th>
            <th>nonce pending</th>
            <th>code (EIP-7702)</th>
          </tr>
        </thead>
        <tbody>
          {accounts.data?.map((address, i) => {
            const state = states.data?.[i]
            return (
              <tr key={address} data-testid="account-row" data-address={address.toLowerCase()}>
                <td>
                  <AddressLink address={address} />
                </td>
                <td>{state && <Ether wei={state.balance.latest} />}</td>
                <td>{state && <Ether wei={state.balance.pending} />}</td>
                <td>{state?.nonce.latest.toString()}</td>
                <td>{state?.nonce.pending.toString()}</td>
                <td>{state && <CodeSummary code={state.code} />}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </Section>
  )
}
