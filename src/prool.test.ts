import { Server } from 'prool'
import { createClient, http, parseEther } from 'viem'
import { getBalance, getBlockNumber, sendTransaction } from 'viem/actions'
import { foundry } from 'viem/chains'
import { beforeAll, describe, it } from 'vitest'

import { flashchain } from './prool.ts'

const dev = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const recipient = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

describe('flashchain/prool', () => {
  const server = Server.create({ instance: flashchain(), host: '127.0.0.1', port: 0 })
  let url = ''
  beforeAll(async () => {
    const stop = await server.start()
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('the pool server has no port')
    url = `http://127.0.0.1:${address.port}`
    // The pool server's stop also stops every flashchain it started.
    return stop
  })

  const client = (id: number) => createClient({ chain: foundry, transport: http(`${url}/${id}`, { retryCount: 0 }) })

  it('default: each key gets its own flashchain, automining as anvil does', async ({ expect }) => {
    await sendTransaction(client(1), { account: dev, to: recipient, value: parseEther('1') })
    expect(await getBlockNumber(client(1), { cacheTime: 0 })).toBe(1n)
    expect(await getBalance(client(1), { address: recipient })).toBe(parseEther('10001'))
    expect(await getBlockNumber(client(2), { cacheTime: 0 })).toBe(0n)
    expect(await getBalance(client(2), { address: recipient })).toBe(parseEther('10000'))
  })

  it('destroy: the next request to the key starts a fresh chain', async ({ expect }) => {
    await sendTransaction(client(3), { account: dev, to: recipient, value: 1n })
    expect(await getBlockNumber(client(3), { cacheTime: 0 })).toBe(1n)
    expect((await fetch(`${url}/3/destroy`)).status).toBe(200)
    expect(await getBlockNumber(client(3), { cacheTime: 0 })).toBe(0n)
  })

  it('messages: the chain log of a key', async ({ expect }) => {
    await sendTransaction(client(4), { account: dev, to: recipient, value: 1n })
    const messages = (await (await fetch(`${url}/4/messages`)).json()) as string[]
    expect(messages.some((line) => line.startsWith('sealed block 1 (1 transaction) '))).toBe(true)
  })
})

describe('flashchain()', () => {
  it('args: createFlashchain options, on the port the pool picks; stop closes it', async ({ expect }) => {
    const instance = flashchain({ chainId: 8453n, mining: 'manual' }).create({ port: 0 })
    await instance.start()
    expect(instance.status).toBe('started')
    expect(instance.port).toBeGreaterThan(0)
    const chain = createClient({ transport: http(instance.url, { retryCount: 0 }) })
    expect(await chain.request({ method: 'eth_chainId' })).toBe('0x2105')
    await sendTransaction(chain, { account: dev, to: recipient, value: 1n, chain: null })
    expect(await chain.request({ method: 'eth_blockNumber' })).toBe('0x0')
    await instance._internal.flashchain?.request({ method: 'evm_mine' })
    expect(await chain.request({ method: 'eth_blockNumber' })).toBe('0x1')
    await instance.stop()
    expect(instance.status).toBe('stopped')
    expect(instance._internal.flashchain).toBeUndefined()
    await expect(fetch(instance.url, { method: 'POST' })).rejects.toThrow()
  })
})
