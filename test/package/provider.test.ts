// The wallet's provider for pages, as the installed package serves it: console/dist/provider.js is in the tarball and
// flashchain/playwright wraps it for an init script.
import { flashchainProvider } from 'flashchain/playwright'
import { expect, inject, test } from 'vitest'

test('flashchainProvider gives an init script that holds the node’s provider.js and where to find the node', async () => {
  const url = inject('flashchainUrl')
  const { content } = await flashchainProvider(url, { windowEthereum: true })
  expect(content).toContain('eip6963:announceProvider')
  expect(content).toContain(JSON.stringify(`${url}/provider.js?ethereum=1`))
})
