/**
 * `flashchain follow` end to end: a sequencer and two replicas, each a real server on 127.0.0.1. Transactions of every
 * kind go in through the sequencer and through the replicas (which forward them); after every flashblock and every
 * block, the same reads at `pending` and `latest` answer the same on all three. Test control on the sequencer
 * (edits, snapshots and reverts, resets) reaches the replicas; writes sent to a replica reach the sequencer, with
 * read-your-writes for the sender's nonce; the sequencer's refusals come back as they are.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { JsonRpcProvider, Wallet } from 'ethers'
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseEther } from 'viem'

import { createReplica } from '../../src/follow/replica.ts'
import { Noisy, Reverter, Store } from './fixtures/contracts.ts'
import { deploy, startChain, toHex } from './helpers.ts'
import { call, expectSameAnswers as expectSame, result, untilFollowed } from './replicaHelpers.ts'

import type { Hex } from 'viem'
import type { Replica } from '../../src/follow/replica.ts'
import type { TestChain } from './helpers.ts'
import type { ReadTargets } from './replicaHelpers.ts'

let sequencer: TestChain
let replicas: Replica[]
let token: Hex
let store: Hex
/** The newest transaction sent, whose receipt every node is asked for. */
let newest: Hex | undefined

/** The reads compared, at the contracts and transaction of the moment. */
const targets = (): ReadTargets => ({
  accounts: [sequencer.accounts[0]!.address, sequencer.accounts[1]!.address],
  token,
  store,
  newest,
})

const expectSameAnswers = () => expectSame(sequencer.url, replicas, targets())

/** A transfer signed here and sent through `url`, from dev account `from`. */
function transferThrough(url: string, from: number, value: bigint): Promise<Hex> {
  const client = createWalletClient({ chain: sequencer.chain, transport: http(url, { retryCount: 0 }), account: sequencer.accounts[from]! })
  return client.sendTransaction({ to: sequencer.accounts[9]!.address, value })
}

beforeAll(async () => {
  sequencer = await startChain()
  const source = `${sequencer.url.replace('http', 'ws')}/flashblocks`
  replicas = await Promise.all([0, 1].map(() => createReplica({ source, rpc: sequencer.url, host: '127.0.0.1', port: 0 })))
  const deployed = await deploy(sequencer, Noisy, [parseEther('1000')])
  const stored = await deploy(sequencer, Store, [7n], 1)
  token = deployed.address
  store = stored.address
  newest = stored.hash
  await sequencer.mine()
  await sequencer.preconfirm()
})

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()))
  await sequencer.close()
})

describe('replicas answer as their sequencer', () => {
  test('after every flashblock and every block of transfers, token calls, deploys and EIP-7702 batches sent to any node', async () => {
    for (let round = 1; round <= 6; round++) {
      // A transfer through each node, a token transfer and a store write on the sequencer.
      newest = await transferThrough(sequencer.url, 2, BigInt(round))
      newest = await transferThrough(replicas[0]!.url, 3, BigInt(round))
      newest = await transferThrough(replicas[1]!.url, 4, BigInt(round))
      newest = await sequencer.wallet(0).sendTransaction({
        to: token,
        data: encodeFunctionData({ abi: Noisy.abi, functionName: 'send', args: [sequencer.accounts[1]!.address, 10n] }),
      })
      newest = await sequencer
        .wallet(1)
        .sendTransaction({ to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [BigInt(round)] }) })
      if (round % 2 === 0) newest = (await deploy(sequencer, Store, [BigInt(round)], 5)).hash
      if (round % 3 === 0) {
        // An atomic batch, sent through a replica to the sequencer's wallet, which runs it through EIP-7702.
        await result(replicas[round % 2]!.url, 'wallet_sendCalls', [
          {
            version: '2.0.0',
            from: sequencer.accounts[6]!.address,
            chainId: toHex(31337),
            atomicRequired: true,
            calls: [
              { to: sequencer.accounts[7]!.address, value: '0x5' },
              { to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [100n + BigInt(round)] }) },
            ],
          },
        ])
      }
      await sequencer.preconfirm()
      await expectSameAnswers()
      if (round % 2 === 0) {
        await sequencer.mine()
        await sequencer.preconfirm()
        await expectSameAnswers()
      }
    }
    for (const replica of replicas) expect(replica.status()).toMatchObject({ state: 'following', resyncs: 0, lastResync: null })
  })

  test('an edit reaches the replicas with no flashblock after it, under manual mining', async () => {
    const target = sequencer.accounts[7]!.address
    await sequencer.rpc('anvil_setBalance', [target, '0x4321'])
    // No flashblock follows: the replicas ask for the changes made since the last one while their stream is quiet.
    for (const replica of replicas) {
      for (let attempt = 0; (await result(replica.url, 'eth_getBalance', [target, 'latest'])) !== '0x4321'; attempt++) {
        if (attempt === 4000) throw new Error(`the edit did not reach ${replica.url}: ${JSON.stringify(replica.status())}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    await sequencer.preconfirm()
    await expectSameAnswers()
    for (const replica of replicas) expect(replica.status()).toMatchObject({ state: 'following', resyncs: 0 })
  })

  test('an edit and a revert with no flashblock after them reach the replicas once, and stay', async () => {
    const target = sequencer.accounts[6]!.address
    /** Resolves once every node's head is `number` (bounded: 4,000 polls 5 ms apart). */
    const untilHead = async (urls: string[], number: Hex) => {
      for (const url of urls) {
        for (let attempt = 0; (await result(url, 'eth_blockNumber')) !== number; attempt++) {
          if (attempt === 4000) throw new Error(`${url} is not at block ${number}`)
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      }
    }
    // A snapshot taken with no block being built: the revert to it publishes no flashblock.
    await sequencer.mine()
    const before = await sequencer.rpc<Hex>('eth_blockNumber')
    const snapshot = await sequencer.rpc<Hex>('evm_snapshot')
    await transferThrough(sequencer.url, 2, 3n)
    await sequencer.mine()
    await sequencer.mine()
    await untilHead(
      replicas.map((replica) => replica.url),
      await sequencer.rpc<Hex>('eth_blockNumber'),
    )
    const reconnects = replicas.map((replica) => replica.status().reconnects)
    await sequencer.rpc('anvil_setBalance', [target, '0x777'])
    expect(await sequencer.rpc('evm_revert', [snapshot])).toBe(true)
    newest = undefined
    // No frame: the replicas take both while their streams are quiet.
    await untilHead(
      replicas.map((replica) => replica.url),
      before,
    )
    // A replica that starts now knows no numbering: the frames the sequencer kept of the blocks reverted must not
    // look like what comes next to it.
    const late = await createReplica({ source: `${sequencer.url.replace('http', 'ws')}/flashblocks`, rpc: sequencer.url, host: '127.0.0.1', port: 0 })
    try {
      // Three more quiet polls: the blocks reverted are not taken again from what the sequencer kept of them.
      await new Promise((resolve) => setTimeout(resolve, 2000))
      for (const [i, replica] of replicas.entries()) {
        expect(await result(replica.url, 'eth_blockNumber')).toBe(before)
        // The revert took the edit back with the rest.
        expect(await result(replica.url, 'eth_getBalance', [target, 'latest'])).toBe(await sequencer.rpc('eth_getBalance', [target, 'latest']))
        expect(replica.status()).toMatchObject({ reconnects: reconnects[i], resyncs: 0 })
      }
      expect(await result(late.url, 'eth_blockNumber')).toBe(before)
      // One more that starts and gets the frame at once, before a quiet poll could take the two.
      const eager = await createReplica({
        source: `${sequencer.url.replace('http', 'ws')}/flashblocks`,
        rpc: sequencer.url,
        host: '127.0.0.1',
        port: 0,
      })
      try {
        // The frame that carries the two skips them on the replicas, which took them already, and on the eager one,
        // whose snapshot holds them (an edit of a block it never had would not apply to it).
        await sequencer.mine()
        await sequencer.preconfirm()
        await expectSameAnswers()
        await expectSame(sequencer.url, [late, eager], targets())
        for (const replica of [...replicas, late, eager]) expect(replica.status()).toMatchObject({ state: 'following', resyncs: 0 })
      } finally {
        await eager.close()
      }
    } finally {
      await late.close()
    }
  })

  test('test control on the sequencer reaches the replicas: edits, snapshots and reverts, resets', async () => {
    const target = sequencer.accounts[8]!.address
    await sequencer.rpc('anvil_setBalance', [target, '0x1234'])
    await sequencer.rpc('anvil_setStorageAt', [store, '0x0', `0x${'2a'.padStart(64, '0')}`])
    await sequencer.preconfirm()
    await expectSameAnswers()
    for (const replica of replicas) expect(await result(replica.url, 'eth_getBalance', [target, 'latest'])).toBe('0x1234')

    const snapshot = await sequencer.rpc<Hex>('evm_snapshot')
    const before = await sequencer.blockNumber()
    newest = await transferThrough(sequencer.url, 2, 1n)
    await sequencer.mine()
    await sequencer.rpc('anvil_setBalance', [target, '0x99'])
    await sequencer.mine()
    await sequencer.preconfirm()
    await expectSameAnswers()
    expect(await sequencer.rpc('evm_revert', [snapshot])).toBe(true)
    newest = undefined
    await sequencer.preconfirm()
    await expectSameAnswers()
    for (const replica of replicas) {
      expect(BigInt(await result<Hex>(replica.url, 'eth_blockNumber'))).toBe(before)
      expect(await result(replica.url, 'eth_getBalance', [target, 'latest'])).toBe('0x1234')
    }

    await sequencer.rpc('anvil_reset')
    await sequencer.preconfirm()
    await expectSameAnswers()
    for (const replica of replicas) expect(await result(replica.url, 'eth_blockNumber')).toBe('0x0')
    for (const replica of replicas) expect(replica.status()).toMatchObject({ state: 'following', resyncs: 0 })
  })

  test('a write sent to a replica reaches the sequencer, and the sender reads its own nonce at once', async () => {
    const replica = replicas[0]!
    const client = createPublicClient({ chain: sequencer.chain, transport: http(replica.url, { retryCount: 0 }) })
    const from = sequencer.accounts[3]!.address
    const nonce = await client.getTransactionCount({ address: from, blockTag: 'pending' })
    const first = await transferThrough(replica.url, 3, 1n)
    // No flashblock has run it yet: the replica knows it from having forwarded it.
    expect(await client.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(nonce + 1)
    const second = await transferThrough(replica.url, 3, 2n)
    expect(await client.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(nonce + 2)
    const pooled = await sequencer.rpc<{ pending: Record<string, Record<string, { hash: Hex }>> }>('txpool_content')
    const hashes = Object.values(pooled.pending).flatMap((byNonce) => Object.values(byNonce).map((tx) => tx.hash))
    expect(hashes).toEqual(expect.arrayContaining([first, second]))
    // The pool is the sequencer's: a replica forwards txpool_* too.
    expect(await result(replica.url, 'txpool_content')).toEqual(pooled)
    newest = second
    await sequencer.preconfirm()
    await expectSameAnswers()
    expect(await client.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(nonce + 2)
  })

  test("ethers through a replica: a wallet's transfer is sent, wait() gets its receipt, the nonce moves on", async () => {
    // No cache: ethers answers the same request made within 250 ms from the first answer.
    const provider = new JsonRpcProvider(replicas[1]!.url, 31337, { staticNetwork: true, pollingInterval: 25, cacheTimeout: -1 })
    const wallet = new Wallet(sequencer.flashchain.chain.spec.accounts[5]!.privateKey, provider)
    try {
      const nonce = await provider.getTransactionCount(wallet.address, 'pending')
      const tx = await wallet.sendTransaction({ to: sequencer.accounts[9]!.address, value: 5n })
      expect(await provider.getTransactionCount(wallet.address, 'pending')).toBe(nonce + 1)
      newest = tx.hash as Hex
      await sequencer.preconfirm()
      // ethers asks for the receipt once, then again only at each new block, which manual mining never brings: the
      // replica must hold the pre-confirmation when it asks.
      await untilFollowed(sequencer.url, replicas[1]!.url, () => replicas[1]!.status())
      const receipt = await tx.wait()
      expect(receipt?.status).toBe(1)
      expect(receipt?.hash).toBe(tx.hash)
      await expectSameAnswers()
    } finally {
      provider.destroy()
    }
  })

  test("the sequencer's refusals come back as they are: a nonce too low, a browser origin calling test control", async () => {
    const replica = replicas[1]!
    const from = sequencer.accounts[4]!
    newest = await transferThrough(sequencer.url, 4, 1n)
    await sequencer.preconfirm()
    const nonce = await sequencer.publicClient.getTransactionCount({ address: from.address, blockTag: 'pending' })
    const raw = await from.signTransaction({
      chainId: 31337,
      to: from.address,
      value: 1n,
      nonce: nonce - 1,
      gas: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    })
    const direct = await call(sequencer.url, 'eth_sendRawTransaction', [raw])
    const forwarded = await call(replica.url, 'eth_sendRawTransaction', [raw])
    expect(direct.error?.message).toMatch(/nonce too low/)
    expect(forwarded).toEqual(direct)

    const response = await fetch(replica.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://example.com' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [from.address, '0x1'] }),
    })
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(4100)
  })

  test('flashchain_followStatus and GET /health tell how a replica follows; a node that follows nothing refuses the method', async () => {
    const replica = replicas[0]!
    const status = await result<Record<string, unknown>>(replica.url, 'flashchain_followStatus')
    expect(status).toMatchObject({ source: `${sequencer.url.replace('http', 'ws')}/flashblocks`, rpc: sequencer.url, state: 'following', resyncs: 0 })
    expect(status.head).toEqual({
      number: await sequencer.rpc('eth_blockNumber'),
      hash: (await sequencer.rpc<{ hash: Hex }>('eth_getBlockByNumber', ['latest', false])).hash,
    })
    const health = await fetch(`${replica.url}/health`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ state: 'following' })
    expect((await call(sequencer.url, 'flashchain_followStatus')).error?.message).toMatch(/follows no sequencer/)
    expect((await fetch(`${sequencer.url}/health`)).status).toBe(200)
  })
})

describe("a replica runs with its sequencer's options, which it reads from the snapshot", () => {
  test('no code size limit, and a revert code of 3: a deploy past 24 KiB is followed, a revert answers as on the sequencer', async () => {
    const own = await startChain({ revertCode: 3, disableCodeSizeLimit: true })
    const follower = await createReplica({ source: `${own.url.replace('http', 'ws')}/flashblocks`, rpc: own.url, host: '127.0.0.1', port: 0 })
    try {
      // Initcode that returns 30,000 zero bytes: PUSH2 0x7530, PUSH1 0, RETURN.
      const big = await own.wallet(0).sendTransaction({ data: '0x6175306000f3', gas: 10_000_000n })
      const reverter = await deploy(own, Reverter)
      await own.mine()
      await own.preconfirm()
      const address = (await own.publicClient.getTransactionReceipt({ hash: big })).contractAddress!
      await expectSame(own.url, [follower], {
        accounts: [own.accounts[0]!.address, own.accounts[1]!.address],
        token: address,
        store: address,
        newest: big,
      })
      expect(((await result<Hex>(follower.url, 'eth_getCode', [address, 'latest'])).length - 2) / 2).toBe(30_000)
      const nope = encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' })
      const onSequencer = await call(own.url, 'eth_call', [{ to: reverter.address, data: nope }, 'latest'])
      expect(onSequencer.error?.code).toBe(3)
      expect(await call(follower.url, 'eth_call', [{ to: reverter.address, data: nope }, 'latest'])).toEqual(onSequencer)
      expect(follower.status()).toMatchObject({ state: 'following', resyncs: 0 })
    } finally {
      await follower.close()
      await own.close()
    }
  })
})
