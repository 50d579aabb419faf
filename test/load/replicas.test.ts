/**
 * A sequencer on its interval clock and three `flashchain follow` replicas, each its own process, under 50
 * transactions a second for 60 s: transfers, token transfers, deploys and EIP-7702 batches, sent to every node (the
 * replicas forward them). Every flashblock the sequencer streams, each replica streams too, with the same block hash,
 * which commits to the state, the receipts and the transactions: `pending` was the same on all four after every
 * frame. After the load, the same reads answer the same on all four at every block, and at `pending` and `latest`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, expect, test } from 'vitest'
import { encodeDeployData, encodeFunctionData, getContractAddress, parseEther } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'

import { Noisy, Store } from '../e2e/fixtures/contracts.ts'
import { killHard, startCli, startFollower } from '../e2e/processes.ts'
import { call, expectSameAnswers, reads, result, untilFollowed, untilFollowing } from '../e2e/replicaHelpers.ts'

import type { ChildProcess } from 'node:child_process'
import type { Hex } from 'viem'
import type { FlashblockJSON } from '../../src/rpc/flashblocks.ts'
import type { ReadTargets } from '../e2e/replicaHelpers.ts'

const MNEMONIC = 'test test test test test test test test test test test junk'
const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }))
const RATE = 50
const SECONDS = 60
const fees = { maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n }

type Started = { child: ChildProcess; url: string }

let dir: string
let sequencer: Started
const replicas: Started[] = []
/** Each node's stream: block hash by `number:index`. */
const streams = new Map<string, Map<string, Hex>>()
const sockets: WebSocket[] = []

function watch(url: string): Promise<void> {
  const frames = new Map<string, Hex>()
  streams.set(url, frames)
  const socket = new WebSocket(`${url.replace('http', 'ws')}/flashblocks?encoding=json`)
  sockets.push(socket)
  socket.onmessage = (event) => {
    const frame = JSON.parse(String(event.data)) as FlashblockJSON
    frames.set(`${frame.metadata.block_number}:${frame.index}`, frame.diff.block_hash)
  }
  return new Promise((resolve, reject) => {
    socket.onopen = () => resolve()
    socket.onerror = reject
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flashchain-replicas-load-'))
  sequencer = await startCli(join(dir, 'sequencer'), ['--quiet', '--mining', 'interval'])
  const source = `${sequencer.url.replace('http', 'ws')}/flashblocks`
  // In the suite's directory: a replica killed with SIGKILL cannot remove a temporary one of its own.
  for (let i = 0; i < 3; i++) replicas.push(await startFollower(source, ['--data-dir', join(dir, `replica${i}`)]))
})

afterAll(async () => {
  for (const socket of sockets) socket.close()
  for (const started of [...replicas, sequencer]) if (started !== undefined && started.child.exitCode === null) await killHard(started.child)
  rmSync(dir, { recursive: true, force: true })
})

test(`three replicas follow a sequencer under ${RATE} transactions a second for ${SECONDS} s`, async () => {
  const nodes = [sequencer, ...replicas].map((node) => node.url)
  const nonces = await Promise.all(
    accounts.map(async (account) => BigInt(await result<Hex>(sequencer.url, 'eth_getTransactionCount', [account.address, 'pending']))),
  )
  const failures: string[] = []
  let sent = 0

  /** Signs a transaction of dev account `from` here and sends it to node `to`. */
  async function send(from: number, to: number, tx: { to?: Hex; data?: Hex; value?: bigint; gas: bigint }) {
    const nonce = nonces[from]!++
    const raw = await accounts[from]!.signTransaction({ chainId: 31337, nonce: Number(nonce), ...fees, ...tx })
    const answer = await call(nodes[to]!, 'eth_sendRawTransaction', [raw])
    if (answer.error !== undefined) failures.push(`${answer.error.code} ${answer.error.message}`)
    sent++
    return { nonce }
  }

  // The token and the store the load uses, sealed first.
  const token = getContractAddress({ from: accounts[5]!.address, nonce: nonces[5]! })
  await send(5, 0, { data: encodeDeployData({ abi: Noisy.abi, bytecode: Noisy.bytecode, args: [parseEther('1000000')] }), gas: 1_000_000n })
  const store = getContractAddress({ from: accounts[7]!.address, nonce: nonces[7]! })
  await send(7, 0, { data: encodeDeployData({ abi: Store.abi, bytecode: Store.bytecode, args: [1n] }), gas: 1_000_000n })
  // A replica that started while the stream had no other reader waits out the block being built, then loads the
  // sequencer's state again, which closes its own stream's connections: the watch starts once all follow.
  for (const replica of replicas) await untilFollowing(replica.url)
  // The replicas' streams first: a frame the sequencer's watch sees, each replica publishes after, to a watch open.
  for (const url of [...nodes].reverse()) await watch(url)

  const started = performance.now()
  for (let i = 0; i < RATE * SECONDS; i++) {
    // Paced: the i-th goes out at i / RATE seconds.
    const due = started + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const to = i % nodes.length
    switch (i % 10) {
      case 7:
        void send(5, to, {
          to: token,
          data: encodeFunctionData({ abi: Noisy.abi, functionName: 'send', args: [accounts[i % 5]!.address, 1n] }),
          gas: 100_000n,
        })
        break
      case 8:
        void send(7, to, { data: encodeDeployData({ abi: Store.abi, bytecode: Store.bytecode, args: [BigInt(i)] }), gas: 1_000_000n })
        break
      case 9: {
        // An atomic batch through the sequencer's wallet, which delegates the account (EIP-7702) and runs it at once.
        const batch = call(nodes[to]!, 'wallet_sendCalls', [
          {
            version: '2.0.0',
            from: accounts[8 + (Math.floor(i / 10) % 2)]!.address,
            chainId: '0x7a69',
            atomicRequired: true,
            calls: [
              { to: accounts[0]!.address, value: '0x1' },
              { to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [BigInt(i)] }) },
            ],
          },
        ])
        void batch.then((answer) => {
          if (answer.error !== undefined) failures.push(`wallet_sendCalls: ${answer.error.code} ${answer.error.message}`)
          sent++
        })
        break
      }
      default:
        void send(i % 5, to, { to: accounts[(i + 1) % 10]!.address, value: BigInt(i), gas: 21_000n })
    }
  }
  // Every send answered, and the last of them pre-confirmed and sealed.
  for (let attempt = 0; sent < RATE * SECONDS + 2 && attempt < 2000; attempt++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(failures).toEqual([])
  expect(sent).toBe(RATE * SECONDS + 2)
  const last = BigInt(await result<Hex>(sequencer.url, 'eth_blockNumber')) + 2n
  while (BigInt(await result<Hex>(sequencer.url, 'eth_blockNumber')) < last) await new Promise((resolve) => setTimeout(resolve, 100))
  // The clock stops, and with it the chain: what every node answers now is the same moment.
  await result(sequencer.url, 'evm_setIntervalMining', [0])
  for (const replica of replicas) await untilFollowed(sequencer.url, replica.url)

  // Every frame the sequencer streamed during the load, each replica streamed with the same block hash.
  const streamed = streams.get(sequencer.url)!
  expect(streamed.size).toBeGreaterThan(SECONDS * 4)
  for (const replica of replicas) {
    const own = streams.get(replica.url)!
    // Each as [block:index, the sequencer's hash, the replica's (undefined: it streamed no such flashblock)].
    const differing = [...streamed].filter(([key, hash]) => own.get(key) !== hash).map(([key, hash]) => [key, hash, own.get(key)])
    expect(differing).toEqual([])
  }

  // The same reads at every block of the load, at its number, and at pending and latest.
  const targets: ReadTargets = { accounts: [accounts[0]!.address, accounts[1]!.address], token, store, newest: undefined }
  const first = BigInt(Math.min(...[...streamed.keys()].map((key) => Number(key.split(':')[0]))))
  for (let number = first; number <= last; number++) {
    const tag = `0x${number.toString(16)}` as 'latest'
    const expected = await reads(sequencer.url, tag, targets)
    for (const replica of replicas) expect(await reads(replica.url, tag, targets)).toEqual(expected)
  }
  await expectSameAnswers(
    sequencer.url,
    replicas.map((replica) => ({ url: replica.url, status: () => replica.url })),
    targets,
  )
  for (const replica of replicas) {
    expect(await result(replica.url, 'flashchain_followStatus')).toMatchObject({ state: 'following', resyncs: 0 })
  }
})
