/**
 * flashchain's wallet in pages driven by Playwright (`import { flashchainProvider } from 'flashchain/playwright'`):
 *
 *   await page.addInitScript(await flashchainProvider(node.url))
 *
 * Every document of the page (and of each frame) then holds the provider before its own scripts run: announced
 * through EIP-6963, and as window.ethereum with `{ windowEthereum: true }`. It is the node's GET /provider.js, so it
 * talks to that node over its WebSocket with the page's Origin, as a script tag would.
 */

export type FlashchainProviderOptions = {
  /** Also set window.ethereum, for dApps that predate EIP-6963. Default false. */
  windowEthereum?: boolean
  /** ms to wait for the node's answer. Default 10 000. */
  timeout?: number
}

/** An init script for Playwright's `page.addInitScript` or `browserContext.addInitScript`. */
export async function flashchainProvider(nodeUrl: string, options: FlashchainProviderOptions = {}): Promise<{ content: string }> {
  const src = new URL('/provider.js', nodeUrl)
  if (options.windowEthereum === true) src.searchParams.set('ethereum', '1')
  const response = await fetch(src, { signal: AbortSignal.timeout(options.timeout ?? 10_000) })
  if (!response.ok) throw new Error(`GET ${src.href} answered HTTP ${response.status}: ${(await response.text()).trim()}`)
  // An init script is no script element, so the provider cannot read its URL from document.currentScript: the block
  // gives it as a constant, visible to the provider and to nothing else on the page.
  return { content: `{\nconst flashchainProviderUrl = ${JSON.stringify(src.href)}\n${await response.text()}\n}\n` }
}
