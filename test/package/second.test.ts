import { parseEther } from 'viem'
import { expect, test } from 'vitest'

import { client, dev, recipient } from './client.ts'

// The same test in two files: whichever runs second sees the chain the snapshot restored.
test('a transfer is sealed at once, on the chain as the run started it', async () => {
  expect(await client.getBalance({ address: recipient })).toBe(parseEther('10000'))
  expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(0n)
  const hash = await client.sendTransaction({ account: dev, to: recipient, value: parseEther('1') })
  expect((await client.getTransactionReceipt({ hash })).status).toBe('success')
  expect(await client.getBalance({ address: recipient })).toBe(parseEther('10001'))
  expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(1n)
})
