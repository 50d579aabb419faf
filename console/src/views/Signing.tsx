/**
 * What a signing request would sign, as a wallet's prompt shows it: a signature is valid beyond this chain (a
 * permit, a login), so the person approving must see the message itself, not only who asks.
 */
import { hexToBytes, isHex } from 'viem'

import { AddressLink, Value } from '../ui.tsx'

import type { Hex } from 'viem'

/** Control characters other than tab and line breaks: bytes that are not meant to be read as text. */
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/** personal_sign's message as text when its bytes are printable UTF-8 (as MetaMask shows it), else undefined. */
function messageText(message: string): string | undefined {
  if (!isHex(message)) return message
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(hexToBytes(message))
    return UNPRINTABLE.test(text) ? undefined : text
  } catch {
    return undefined
  }
}

export function PersonalSign({ params }: { params: unknown }) {
  const [message, address] = params as [string, Hex]
  const text = messageText(message)
  return (
    <div>
      sign a message as <AddressLink address={address} />
      {text === undefined && <span class="muted"> (bytes that are not text, in hex)</span>}
      <pre class="signed" data-testid="sign-message">
        {text ?? message}
      </pre>
    </div>
  )
}

type TypedData = {
  domain?: Record<string, unknown>
  primaryType: string
  types: Record<string, { name: string; type: string }[]>
  message: Record<string, unknown>
}

const domainFields = ['name', 'version', 'chainId', 'verifyingContract', 'salt'] as const

/** A field's value: nested structs and arrays as JSON, the rest as the console shows any argument. */
const Field = ({ value }: { value: unknown }) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? <span class="mono">{JSON.stringify(value)}</span> : <Value value={value} />

export function SignTypedData({ params }: { params: unknown }) {
  const [address, raw] = params as [Hex, string | TypedData]
  let data: TypedData
  try {
    data = typeof raw === 'string' ? (JSON.parse(raw) as TypedData) : raw
  } catch {
    return <div class="error">typed data that is not JSON: {String(raw)}</div>
  }
  const domain = data.domain ?? {}
  return (
    <div>
      sign typed data (EIP-712) <b>{data.primaryType}</b> as <AddressLink address={address} />
      <table class="signed" data-testid="sign-domain">
        <tbody>
          {domainFields
            .filter((name) => domain[name] !== undefined)
            .map((name) => (
              <tr key={name} data-field={name}>
                <td class="muted">domain.{name}</td>
                <td>
                  <Field value={domain[name]} />
                </td>
              </tr>
            ))}
        </tbody>
      </table>
      <table class="signed" data-testid="sign-fields">
        <tbody>
          {(data.types[data.primaryType] ?? []).map(({ name, type }) => (
            <tr key={name} data-field={name}>
              <td class="muted">
                {name} <span class="muted">{type}</span>
              </td>
              <td>
                <Field value={data.message[name]} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function EthSign({ params }: { params: unknown }) {
  const [address, hash] = params as [Hex, Hex]
  return (
    <div>
      <p class="error" data-testid="eth-sign-warning">
        eth_sign signs a raw hash: it may be a transaction or a permit on any chain, and nothing here can tell which. Approve only if you know what
        produced it.
      </p>
      sign the hash <span class="mono">{hash}</span> as <AddressLink address={address} />
    </div>
  )
}
