import { useState } from 'preact/hooks'
import { parseEther } from 'viem'

import { checksum } from '../format.ts'
import { rpc } from '../rpc.ts'
import { Failure, Section } from '../ui.tsx'
import { useAccounts } from './Accounts.tsx'

import type { Hex } from 'viem'

/** The snapshots taken from this page, oldest first; they outlive the view but not the page. */
let taken: Hex[] = []

/** Test-control methods (anvil's names), each one click: they change the dev chain, so they are the owner's. */
export function Dev() {
  const accounts = useAccounts()
  const [address, setAddress] = useState('')
  const [amount, setAmount] = useState('100')
  const [snapshots, setSnapshots] = useState(taken)
  const [message, setMessage] = useState<string>()
  const [error, setError] = useState<string>()

  async function act(work: () => Promise<string>) {
    setError(undefined)
    try {
      setMessage(await work())
    } catch (reason) {
      setMessage(undefined)
      setError(reason instanceof Error ? reason.message : String(reason))
    }
  }

  const target = address || accounts.data?.[0] || ''
  const fund = (method: 'anvil_setBalance' | 'anvil_addBalance') =>
    act(async () => {
      await rpc(method, [target, `0x${parseEther(amount).toString(16)}`])
      return `${method === 'anvil_setBalance' ? 'set the balance of' : 'added to'} ${checksum(target)}: ${amount} ETH`
    })
  const keep = (next: Hex[]) => {
    taken = next
    setSnapshots(next)
  }

  return (
    <div data-testid="view-dev">
      <Section title="Fund an account">
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault()
            fund('anvil_setBalance')
          }}
        >
          <label for="fund-address">Account</label>
          <input
            id="fund-address"
            data-testid="fund-address"
            class="address"
            list="wallet-accounts"
            spellcheck={false}
            placeholder={accounts.data?.[0] === undefined ? '0x…' : checksum(accounts.data[0])}
            value={address}
            onInput={(event) => setAddress(event.currentTarget.value.trim())}
          />
          <datalist id="wallet-accounts">
            {accounts.data?.map((account) => (
              <option key={account} value={checksum(account)} />
            ))}
          </datalist>
          <label for="fund-amount">Amount</label>
          <input
            id="fund-amount"
            data-testid="fund-amount"
            class="narrow"
            inputMode="decimal"
            value={amount}
            onInput={(event) => setAmount(event.currentTarget.value.trim())}
          />{' '}
          ETH
          <button type="submit" data-testid="fund-set">
            Set balance
          </button>
          <button type="button" data-testid="fund-add" onClick={() => fund('anvil_addBalance')}>
            Add
          </button>
        </form>
      </Section>
      <Section title="Blocks and snapshots">
        <div class="row">
          <button
            type="button"
            data-testid="mine"
            onClick={() =>
              act(async () => {
                await rpc('evm_mine')
                return 'mined a block'
              })
            }
          >
            Mine a block
          </button>
          <button
            type="button"
            data-testid="snapshot"
            onClick={() =>
              act(async () => {
                const id = await rpc('evm_snapshot')
                keep([...taken, id])
                return `snapshot ${id} taken`
              })
            }
          >
            Take a snapshot
          </button>
        </div>
        <ul class="snapshots" aria-label="snapshots taken from this page">
          {snapshots.map((id) => (
            <li key={id} data-testid="snapshot-row" data-id={id}>
              <span class="mono">snapshot {BigInt(id).toString()}</span>{' '}
              <button
                type="button"
                aria-label={`Restore snapshot ${BigInt(id)}`}
                onClick={() =>
                  act(async () => {
                    const restored = await rpc('evm_revert', [id])
                    // A revert deletes its snapshot and every later one (Hardhat's semantics).
                    keep(taken.slice(0, taken.indexOf(id)))
                    return restored ? `restored snapshot ${BigInt(id)}` : `snapshot ${BigInt(id)} no longer exists`
                  })
                }
              >
                Restore
              </button>
            </li>
          ))}
        </ul>
      </Section>
      {message !== undefined && (
        <p class="ok" data-testid="dev-message">
          {message}
        </p>
      )}
      <Failure error={error} />
    </div>
  )
}
