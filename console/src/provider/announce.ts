/** EIP-6963: announces the provider to the page, now and whenever the page asks (a dApp that loads later). */
import type { Provider } from './provider.ts'

export type ProviderInfo = { uuid: string; name: string; icon: string; rdns: string }

/** The icon, square as EIP-6963 wants: flashchain's bolt on a dark tile. */
const icon = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" rx="20" fill="#1f2328"/><path d="M54 10 22 54h22l-6 32 36-46H52z" fill="#f5c400"/></svg>',
)}`

/**
 * A version 4 UUID. crypto.randomUUID exists only in secure contexts, and a dApp under development is often served
 * over plain http from a name that is not localhost; getRandomValues exists everywhere.
 */
function uuid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function announceProvider(provider: Provider): ProviderInfo {
  const info: ProviderInfo = Object.freeze({ uuid: uuid(), name: 'flashchain', icon, rdns: 'dev.flashchain' })
  const detail = Object.freeze({ info, provider })
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }))
  window.addEventListener('eip6963:requestProvider', announce)
  announce()
  return info
}
