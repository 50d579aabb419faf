import { useState } from 'preact/hooks'

import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { Failure, Section } from '../ui.tsx'

import { approvalDecisions, approvalKeys } from '../../../src/wallet/approvalKeys.ts'

import type { ApprovalDecision, ApprovalKey, ApprovalPolicy } from '../../../src/wallet/approvalKeys.ts'

/** Each key in words, beside its method name: what a person is asked to allow. */
const keyLabels: Record<ApprovalKey, string> = {
  wallet_sendCalls: 'send a batch of calls',
  wallet_watchAsset: 'watch a token',
  eth_requestAccounts: 'connect a site',
  eth_sendTransaction: 'send a transaction',
  upgrade: 'EIP-7702 upgrade for an atomic batch',
  personal_sign: 'sign a message',
  eth_signTypedData_v4: 'sign typed data',
  eth_sign: 'sign a raw hash',
  eth_signTransaction: 'sign a transaction without sending it',
}

function DecisionSelect({
  value,
  label,
  testid,
  onChange,
}: {
  value: ApprovalDecision
  label: string
  testid: string
  onChange(decision: ApprovalDecision): void
}) {
  return (
    <select data-testid={testid} aria-label={label} value={value} onChange={(event) => onChange(event.currentTarget.value as ApprovalDecision)}>
      {approvalDecisions.map((decision) => (
        <option key={decision}>{decision}</option>
      ))}
    </select>
  )
}

/**
 * The default answer, then only the keys that differ from it: nine rows that all say "default" tell nothing. A key
 * is given its own answer from the form below the list, and Remove puts it back on the default.
 */
export function PolicyEditor() {
  const policy = useQuery(() => rpc('flashchain_getApprovalPolicy'), [])
  const [error, setError] = useState<string>()
  const [adding, setAdding] = useState<{ key: ApprovalKey | ''; decision: ApprovalDecision }>({ key: '', decision: 'manual' })
  const save = async (next: ApprovalPolicy) => {
    try {
      await rpc('flashchain_setApprovalPolicy', [next])
      setError(undefined)
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason))
    }
    policy.reload()
  }
  const data = policy.data
  const set = (key: ApprovalKey, decision: ApprovalDecision | undefined) => {
    if (data === undefined) return
    const { [key]: _, ...methods } = data.methods
    save({ ...data, methods: decision === undefined ? methods : { ...methods, [key]: decision } })
  }
  const overridden = approvalKeys.filter((key) => data?.methods[key] !== undefined)
  const free = approvalKeys.filter((key) => data?.methods[key] === undefined)
  return (
    <Section title="Approval policy" testid="policy">
      <Failure error={policy.error ?? error} />
      {data && (
        <>
          <div class="row">
            <label for="policy-default">Every request, unless set below:</label>
            <select
              id="policy-default"
              data-testid="policy-default"
              value={data.default}
              onChange={(event) => save({ ...data, default: event.currentTarget.value as ApprovalDecision })}
            >
              {approvalDecisions.map((decision) => (
                <option key={decision}>{decision}</option>
              ))}
            </select>
          </div>
          {overridden.length > 0 && (
            <table class="policy">
              <thead>
                <tr>
                  <th>request</th>
                  <th>answer</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {overridden.map((key) => (
                  <tr key={key} data-testid="policy-row" data-key={key}>
                    <td>
                      {keyLabels[key]} <span class="mono muted">{key}</span>
                    </td>
                    <td>
                      <DecisionSelect
                        value={data.methods[key]!}
                        label={`answer to ${key}`}
                        testid={`policy-${key}`}
                        onChange={(decision) => set(key, decision)}
                      />
                    </td>
                    <td>
                      <button type="button" aria-label={`Remove the rule for ${key}`} onClick={() => set(key, undefined)}>
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {free.length > 0 && (
            <form
              class="row"
              aria-label="a rule for one kind of request"
              onSubmit={(event) => {
                event.preventDefault()
                if (adding.key === '') return
                set(adding.key, adding.decision)
                setAdding({ key: '', decision: adding.decision })
              }}
            >
              <select
                data-testid="policy-add-key"
                aria-label="request to set a rule for"
                value={adding.key}
                onChange={(event) => setAdding({ ...adding, key: event.currentTarget.value as ApprovalKey })}
              >
                <option value="">a rule for…</option>
                {free.map((key) => (
                  <option key={key} value={key}>
                    {keyLabels[key]} ({key})
                  </option>
                ))}
              </select>
              <DecisionSelect
                value={adding.decision}
                label="answer for that request"
                testid="policy-add-decision"
                onChange={(decision) => setAdding({ ...adding, decision })}
              />
              <button type="submit" data-testid="policy-add" disabled={adding.key === ''}>
                Set
              </button>
            </form>
          )}
        </>
      )}
    </Section>
  )
}
