/**
 * What the replica suites share: JSON-RPC over HTTP to any node, the reads compared across a sequencer and its
 * replicas, and the wait for a replica to show the sequencer's pending block.
 */
import { expect } from 'vitest'
import { encodeFunctionData } from 'viem'

import { Noisy } from './fixtures/contracts.ts'

import type { Hex } from 'viem'

export type Answer = { result?: unknown; error?: { code: number; message: string } }

export async function call(url: string, method: string, params: unknown[] = []): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as Answer
}

export async function result<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const answer = await call(url, method, params)
  if (answer.error !== undefined) throw new Error(`${method} on ${url}: ${answer.error.code} ${answer.error.message}`)
  return answer.result as T
}

/** What the reads look at: two accounts, a Noisy token, a contract whose slot 0 is read, the newest transaction. */
export type ReadTargets = { accounts: [Hex, Hex]; token: Hex; store: Hex; newest: Hex | undefined }

/**
 * The reads compared across the nodes, at one tag: the block and its receipts, a balance, a nonce, code, storage, a
 * call, an estimate, logs, fee history, a receipt, the block number.
 */
export async function reads(url: string, tag: 'pending' | 'latest', targets: ReadTargets): Promise<Record<string, Answer>> {
  const [a, b] = targets.accounts
  const balanceOf = encodeFunctionData({ abi: Noisy.abi, functionName: 'balanceOf', args: [b] })
  const requests: [string, unknown[]][] = [
    ['eth_blockNumber', []],
    ['eth_getBlockByNumber', [tag, true]],
    ['eth_getBlockReceipts', [tag]],
    ['eth_getBalance', [b, tag]],
    ['eth_getTransactionCount', [a, tag]],
    ['eth_getCode', [targets.token, tag]],
    ['eth_getStorageAt', [targets.store, '0x0', tag]],
    ['eth_call', [{ to: targets.token, data: balanceOf }, tag]],
    ['eth_estimateGas', [{ from: a, to: b, value: '0x1' }, tag]],
    ['eth_getLogs', [{ fromBlock: '0x0', toBlock: tag }]],
    ['eth_feeHistory', ['0x4', tag, [50]]],
    ['eth_getTransactionReceipt', [targets.newest]],
  ]
  const answers = await Promise.all(requests.map(([method, params]) => call(url, method, params)))
  return Object.fromEntries(requests.map(([method], i) => [method, answers[i]!]))
}

/**
 * Resolves once the replica has run the sequencer's pending block as of now: it knows the block by that hash (a
 * flashblock of the block being built, or the sealed block). For a chain that stands still between the call and the
 * answer (manual mining, or the clock stopped): on a moving one the replica may be past it. Bounded: 4,000 polls 5 ms
 * apart.
 */
export async function untilFollowed(sequencer: string, replica: string, describe: () => unknown = () => ''): Promise<void> {
  const wanted = await result<{ hash: Hex }>(sequencer, 'eth_getBlockByNumber', ['pending', false])
  for (let attempt = 0; ; attempt++) {
    if ((await result(replica, 'eth_getBlockByHash', [wanted.hash, false])) !== null) return
    if (attempt === 4000) throw new Error(`${replica} did not follow ${sequencer}: ${JSON.stringify(describe())}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** Resolves once the replica says it follows, a frame applied at least (bounded: 4,000 polls 5 ms apart). */
export async function untilFollowing(replica: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const status = await result<{ state: string; frames: number }>(replica, 'flashchain_followStatus')
    if (status.state === 'following' && status.frames > 0) return
    if (attempt === 4000) throw new Error(`${replica} does not follow: ${JSON.stringify(status)}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** Every replica answers the reads as the sequencer does, at pending and at latest. */
export async function expectSameAnswers(
  sequencer: string,
  replicas: readonly { url: string; status(): unknown }[],
  targets: ReadTargets,
): Promise<void> {
  for (const replica of replicas) await untilFollowed(sequencer, replica.url, () => replica.status())
  for (const tag of ['pending', 'latest'] as const) {
    const expected = await reads(sequencer, tag, targets)
    for (const replica of replicas) expect(await reads(replica.url, tag, targets)).toEqual(expected)
  }
}
