// flashchain/chains: the node as a viem chain, whose clients read `pending` by default.
import { flashchainChain } from 'flashchain/chains'
import { createPublicClient, http } from 'viem'
import { expect, inject, test } from 'vitest'

test('a client on flashchainChain({ url }) reads the pending block by default', async () => {
  const chain = flashchainChain({ url: inject('flashchainUrl') })
  const client = createPublicClient({ chain, transport: http() })
  expect(await client.getChainId()).toBe(chain.id)
  const latest = await client.getBlockNumber({ cacheTime: 0 })
  expect((await client.getBlock()).number).toBe(latest + 1n)
})
