// Each test file starts from the chain as the run started it: a snapshot before its first test, a revert after
// its last. A revert deletes its snapshot, so each file takes its own.
import { createTestClient, http } from 'viem'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, inject } from 'vitest'

const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(inject('flashchainUrl')) })
let snapshot: `0x${string}`

beforeAll(async () => {
  snapshot = await testClient.snapshot()
})

afterAll(async () => {
  await testClient.revert({ id: snapshot })
})
