/**
 * GET /provider.js: flashchain's wallet for any page. Loaded by a script tag, it finds the node from its own URL
 * (`<script src="http://127.0.0.1:8545/provider.js">`); `?ethereum` also sets window.ethereum. Carried by an init
 * script (flashchain/playwright), where no script element exists, it reads the same URL from
 * `flashchainProviderUrl`, a constant the init script declares around it.
 */
import { announceProvider } from './announce.ts'
import { createProvider } from './provider.ts'

declare const flashchainProviderUrl: string | undefined

const src = typeof flashchainProviderUrl === 'string' ? flashchainProviderUrl : (document.currentScript as HTMLScriptElement | null)?.src
if (src === undefined || src === '') throw new Error('flashchain provider.js: cannot tell where the node is; load it with <script src>')

const url = new URL(src)
const provider = createProvider(`${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}/`)
announceProvider(provider)
if (url.searchParams.has('ethereum')) {
  try {
    Object.defineProperty(window, 'ethereum', { value: provider, configurable: true, writable: true })
    // What pages that predate EIP-6963 wait for (MetaMask's detect-provider) when the provider comes late.
    window.dispatchEvent(new Event('ethereum#initialized'))
  } catch {
    console.warn('flashchain: window.ethereum is held by another wallet; flashchain is announced through EIP-6963 only')
  }
}
