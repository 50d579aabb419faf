// hardhat-network-helpers 3.x against the node at FLASHCHAIN_URL, run by `hardhat run --network target`. Prints one
// line per check that held; the first that does not throws, and hardhat exits non-zero.
import assert from 'node:assert/strict'

import { network } from 'hardhat'

const { networkHelpers, provider } = await network.getOrCreate()
const request = (method: string, params: unknown[] = []) => provider.request({ method, params })

const address = '0x00000000000000000000000000000000000c0ffe'
await networkHelpers.setBalance(address, 123_456_789n)
assert.equal(await request('eth_getBalance', [address, 'latest']), '0x75bcd15')
console.log('ok setBalance')

const whale = '0x000000000000000000000000000000000000beef'
const recipient = '0x000000000000000000000000000000000000f00d'
await networkHelpers.setBalance(whale, 10n ** 19n)
await networkHelpers.impersonateAccount(whale)
const hash = (await request('eth_sendTransaction', [{ from: whale, to: recipient, value: '0x3e8' }])) as string
for (let attempt = 0; attempt < 100 && (await request('eth_getBalance', [recipient, 'latest'])) !== '0x3e8'; attempt++) {
  await new Promise((resolve) => setTimeout(resolve, 100))
}
assert.equal(await request('eth_getBalance', [recipient, 'latest']), '0x3e8')
assert.equal(((await request('eth_getTransactionByHash', [hash])) as { from: string }).from, whale)
await networkHelpers.stopImpersonatingAccount(whale)
console.log('ok impersonateAccount')

const snapshot = await networkHelpers.takeSnapshot()
await networkHelpers.setBalance(address, 2n)
assert.equal(await request('eth_getBalance', [address, 'latest']), '0x2')
await snapshot.restore()
assert.equal(await request('eth_getBalance', [address, 'latest']), '0x75bcd15')
console.log('ok takeSnapshot')

// Exact block numbers and timestamps hold only on a node that mines when asked (see the Hardhat 2 suite).
if (process.env.MINING === 'auto') {
  const before = await networkHelpers.time.latestBlock()
  await networkHelpers.mine(3)
  assert.equal(await networkHelpers.time.latestBlock(), before + 3)
  console.log('ok mine')

  const latest = await networkHelpers.time.latest()
  assert.equal(await networkHelpers.time.increase(3600), latest + 3600)
  assert.equal(await networkHelpers.time.latest(), latest + 3600)
  await networkHelpers.time.increaseTo(latest + 86_400)
  assert.equal(await networkHelpers.time.latest(), latest + 86_400)
  console.log('ok time')
}
