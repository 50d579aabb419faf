// A pool of flashchains, one per key, as prool's anvil instance gives anvils: a worker's tests use `${url}/${poolId}`.
import { flashchain } from 'flashchain/prool'
import { Server } from 'prool'
import { createTestClient, http, parseEther, publicActions, walletActions } from 'viem'
import { foundry } from 'viem/chains'
import { beforeAll, expect, test } from 'vitest'

import { dev, recipient } from './client.ts'

const server = Server.create({ instance: flashchain(), host: '127.0.0.1', port: 0 })
let url = ''

beforeAll(async () => {
  const stop = await server.start()
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the pool server has no port')
  url = `http://127.0.0.1:${address.port}`
  return stop
})

const clientOf = (id: number) =>
  createTestClient({ chain: foundry, mode: 'anvil', transport: http(`${url}/${id}`) })
    .extend(publicActions)
    .extend(walletActions)

test('each key has its own flashchain', async () => {
  await clientOf(1).sendTransaction({ account: dev, to: recipient, value: parseEther('1') })
  expect(await clientOf(1).getBalance({ address: recipient })).toBe(parseEther('10001'))
  expect(await clientOf(2).getBalance({ address: recipient })).toBe(parseEther('10000'))
})
