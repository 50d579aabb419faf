import { useState } from 'preact/hooks'

import { EXECUTOR } from '../abi.ts'
import { Ether } from '../amount.tsx'
import { since } from '../format.ts'
import { approvalFeed } from '../live.ts'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { useStore } from '../store.ts'
import { AddressLink, CallData, Failure, Section } from '../ui.tsx'
import { EthSign, PersonalSign, SignTypedData } from './Signing.tsx'

import type { Hex } from 'viem'
import type { PendingApprovals } from '../live.ts'

type PendingApproval = PendingApprovals[number]

/** How often the page asks for the waiting prompts itself, when it has no subscription to them. */
const POLL_MS = 1000

type Call = { to?: Hex; value?: Hex; data?: Hex }
type BatchRequest = { from: Hex; atomicRequired: boolean; calls: Call[] }
/** The upgrade prompt of an atomic batch: the account, the code it would delegate to, and the batch it is for. */
type UpgradeRequest = { account: Hex; delegate: Hex; batch: BatchRequest }
type AssetRequest = { type: string; options: { address: Hex; symbol: string; decimals: number } }

/** The first parameter, whether the method sent a list (wallet_sendCalls) or an object (wallet_watchAsset). */
const first = <T,>(params: unknown): T => (Array.isArray(params) ? params[0] : params) as T

function Calls({ calls }: { calls: Call[] }) {
  return (
    <ol class="calls">
      {calls.map((call, i) => (
        <li key={i} data-testid="approval-call">
          <AddressLink address={call.to} /> <Ether wei={call.value ?? '0x0'} /> <CallData data={call.data} to={call.to} />
        </li>
      ))}
    </ol>
  )
}

/** What the request asks for, in words: the approval a person would give in a wallet's popup. */
function Summary({ approval }: { approval: PendingApproval }) {
  switch (approval.key) {
    case 'wallet_sendCalls': {
      const batch = first<BatchRequest>(approval.params)
      return (
        <div>
          {batch.atomicRequired ? 'an atomic batch' : 'a batch'} of {batch.calls.length} from <AddressLink address={batch.from} />
          <Calls calls={batch.calls} />
        </div>
      )
    }
    case 'upgrade': {
      const { account, delegate, batch } = first<UpgradeRequest>(approval.params)
      return (
        <div>
          EIP-7702 upgrade: delegate <AddressLink address={account} /> to <AddressLink address={delegate} />
          {delegate.toLowerCase() === EXECUTOR && ' (the batch executor)'}, for an atomic batch of {batch.calls.length}
          <Calls calls={batch.calls} />
        </div>
      )
    }
    case 'wallet_watchAsset': {
      const { options } = first<AssetRequest>(approval.params)
      return (
        <div>
          watch the token {options.symbol} ({options.decimals} decimals) at <AddressLink address={options.address} />
        </div>
      )
    }
    case 'eth_sendTransaction':
    case 'eth_signTransaction': {
      const tx = first<Call & { from: Hex }>(approval.params)
      return (
        <div>
          {approval.key === 'eth_signTransaction' ? 'sign, without sending, ' : ''}a transaction from <AddressLink address={tx.from} /> to{' '}
          <AddressLink address={tx.to} />, <Ether wei={tx.value ?? '0x0'} /> <CallData data={tx.data} to={tx.to} />
        </div>
      )
    }
    case 'personal_sign':
      return <PersonalSign params={approval.params} />
    case 'eth_signTypedData_v4':
      return <SignTypedData params={approval.params} />
    case 'eth_sign':
      return <EthSign params={approval.params} />
    default:
      return <div>access to the wallet's accounts</div>
  }
}

/**
 * The prompts waiting for the user, as the node sends them on the page's WebSocket when they change
 * (flashchain_pendingApprovals). Without that subscription (the socket is down, or the node wants the wallet token,
 * which a WebSocket cannot carry), the page asks every second instead.
 */
export function ApprovalQueue() {
  const feed = useStore(approvalFeed)
  if (feed.state === 'unsubscribed') return <PolledQueue />
  return <Queue approvals={feed.state === 'subscribed' ? feed.approvals : undefined} />
}

function PolledQueue() {
  const queue = useQuery(() => rpc('flashchain_getPendingApprovals'), [], POLL_MS)
  return <Queue approvals={queue.data} loadError={queue.error} reload={queue.reload} />
}

function Queue({ approvals, loadError, reload }: { approvals: PendingApprovals | undefined; loadError?: string; reload?: () => void }) {
  const [error, setError] = useState<string>()
  const resolve = async (id: string, decision: 'approve' | 'reject') => {
    try {
      await rpc('flashchain_resolveApproval', [id, decision])
      setError(undefined)
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason))
    }
    // A subscription sends the list without the prompt by itself; a poll asks again at once.
    reload?.()
  }
  return (
    <Section title="Waiting for approval" testid="approval-queue">
      <Failure error={loadError ?? error} />
      {approvals?.length === 0 && <p class="muted">nothing waiting</p>}
      {approvals?.map((approval) => (
        <div class="approval" key={approval.id} data-testid="approval" data-id={approval.id} data-key={approval.key}>
          <div class="approval-head">
            <b>{approval.method}</b>
            {approval.key !== approval.method && <span class="badge">{approval.key}</span>}
            <span class="muted">from {approval.origin ?? 'the owner'}</span>
            <span class="muted">{since(approval.createdAt)}</span>
          </div>
          <Summary approval={approval} />
          <div class="row">
            <button type="button" class="approve" data-testid="approve" onClick={() => resolve(approval.id, 'approve')}>
              Approve
            </button>
            <button type="button" class="reject" data-testid="reject" onClick={() => resolve(approval.id, 'reject')}>
              Reject
            </button>
          </div>
        </div>
      ))}
    </Section>
  )
}
