/**
 * A flood of polled filters that nobody polls, while transactions flow: what the node holds does not grow with
 * filters × events, another client is answered all along, and the filters that are polled (raw, viem's and ethers')
 * get exactly the changes they should.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Contract, JsonRpcProvider } from 'ethers'
import { encodeFunctionData, toHex } from 'viem'

import { Store } from '../e2e/fixtures/contracts.ts'
import { VALUE_SET, deploy, startChain } from '../e2e/helpers.ts'
import { pollUntil } from '../e2e/walletHelpers.ts'
import { heldBytes } from '../support/memory.ts'
import { lateAnswers, startProbe } from '../support/probe.ts'

import type { Hex, Log } from 'viem'
import type { RpcResponse, TestChain } from '../e2e/helpers.ts'

/** Unpolled filters, a third of each kind; above the default caps, which this chain raises. */
const FILTERS = 30_000
/** Transactions sent while they are installed, each emitting one ValueSet log. */
const TRANSACTIONS = 1_000
const PER_BLOCK = 100
const MiB = 1024 * 1024

let t: TestChain
let store: Hex

beforeAll(async () => {
  t = await startChain({ maxFilters: FILTERS + 100, maxFiltersPerOrigin: FILTERS + 100 })
  store = (await deploy(t, Store, [1n])).address
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

async function batch(requests: { method: string; params: unknown[] }[]): Promise<RpcResponse[]> {
  const response = await fetch(t.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(requests.map((request, id) => ({ jsonrpc: '2.0', id, ...request }))),
  })
  return (await response.json()) as RpcResponse[]
}

/** Empty blocks the test may mine after the flood for ethers to catch up: two suffice (below). */
const EXTRA_BLOCKS = 10

describe('a flood of filters nobody polls', () => {
  it('holds no copy of each event per filter, answers another client, and gives polled filters exactly their changes', async () => {
    const blocks = await t.rpc<Hex>('eth_newBlockFilter')
    const pending = await t.rpc<Hex>('eth_newPendingTransactionFilter')
    const query = { address: store, topics: [VALUE_SET] }
    const logs = await t.rpc<Hex>('eth_newFilter', [query])

    // viem polls through eth_newFilter and eth_getFilterChanges over HTTP.
    const viemSeen: Log[] = []
    const unwatch = t.publicClient.watchContractEvent({
      address: store,
      abi: Store.abi,
      eventName: 'ValueSet',
      poll: true,
      pollingInterval: 50,
      onLogs: (found) => viemSeen.push(...found),
    })
    // ethers' JsonRpcProvider too, on each new block. What it asks is watched: the head it has seen, and whether a
    // poll of its filter is on its way.
    const provider = new JsonRpcProvider(t.url, 31337, { staticNetwork: true, cacheTimeout: -1 })
    provider.pollingInterval = 50
    let ethersHead = 0n
    let ethersPolls = 0
    const send = provider.send.bind(provider)
    provider.send = async (method: string, params: unknown[] | Record<string, unknown>) => {
      if (method === 'eth_getFilterChanges') ethersPolls++
      try {
        const result = await send(method, params)
        if (method === 'eth_blockNumber' && BigInt(result) > ethersHead) ethersHead = BigInt(result)
        return result
      } finally {
        if (method === 'eth_getFilterChanges') ethersPolls--
      }
    }
    const ethersSeen: string[] = []
    const contract = new Contract(store, Store.abi as never, provider)
    await contract.on('ValueSet', (_value: bigint, _by: string, payload: { log: { transactionHash: string } }) => {
      ethersSeen.push(payload.log.transactionHash)
    })

    const kinds = [
      { method: 'eth_newBlockFilter', params: [] },
      { method: 'eth_newPendingTransactionFilter', params: [] },
      { method: 'eth_newFilter', params: [{}] },
    ]
    for (let made = 0; made < FILTERS; made += 1000) {
      const answers = await batch(Array.from({ length: 1000 }, (_, i) => kinds[(made + i) % 3]!))
      expect(answers.every((answer) => typeof answer.result === 'string')).toBe(true)
    }

    // Sign everything first, so that what follows measures the node and not the signing.
    const gasPrice = BigInt(await t.rpc<Hex>('eth_gasPrice'))
    const senders = [1, 2, 3, 4, 5, 6, 7, 8]
    const nonces = await Promise.all(
      senders.map(async (i) => Number(await t.rpc<Hex>('eth_getTransactionCount', [t.accounts[i]!.address, 'pending']))),
    )
    const raw: Hex[] = []
    for (let i = 0; i < TRANSACTIONS; i++) {
      const from = i % senders.length
      raw.push(
        await t.accounts[senders[from]!]!.signTransaction({
          chainId: 31337,
          type: 'eip1559',
          nonce: nonces[from]!++,
          to: store,
          data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [BigInt(i)] }),
          gas: 100_000n,
          maxFeePerGas: gasPrice * 2n,
          maxPriorityFeePerGas: 1n,
        }),
      )
    }

    const before = heldBytes()

    // Another client asks all along, and each answer is checked and placed by the blocks the flood had mined.
    const sent: Hex[] = []
    const mined: bigint[] = []
    const probe = startProbe(t, () => mined.length)
    for (let first = 0; first < TRANSACTIONS; first += PER_BLOCK) {
      const answers = await batch(raw.slice(first, first + PER_BLOCK).map((tx) => ({ method: 'eth_sendRawTransaction', params: [tx] })))
      for (const answer of answers) sent.push(answer.result as Hex)
      mined.push(await t.mine())
    }
    const answers = await probe.stop()

    expect(sent.every((hash) => /^0x[0-9a-f]{64}$/.test(hash))).toBe(true)
    // Were each of the 20,000 transaction and log filters to keep a reference to each of the 1,000 events of its
    // kind, the references alone would take 160 MB. Shared, the events cost the same whatever the number of filters.
    const grown = heldBytes() - before
    expect(grown).toBeLessThan(64 * MiB)

    // Every probe was answered before the flood had mined two more blocks: sent while one batch and its block were
    // on their way, it was on the wire before the next batch, so a node that serves others between the flood's
    // requests answers it before the next block. The first was sent as the flood began, so the flood's ten blocks
    // also show that another client was answered while it still ran.
    expect(answers.length).toBeGreaterThan(0)
    expect(lateAnswers(answers, 1)).toEqual([])

    // The polled filters: exactly what happened since they were made.
    const hashes = await Promise.all(mined.map(async (number) => (await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', [toHex(number), false])).hash))
    expect(await t.rpc('eth_getFilterChanges', [blocks])).toEqual(hashes)
    expect(await t.rpc('eth_getFilterChanges', [pending])).toEqual(sent)
    const changes = await t.rpc<{ transactionHash: Hex }[]>('eth_getFilterChanges', [logs])
    expect(changes.map((log) => log.transactionHash)).toEqual(sent)
    expect(changes).toEqual(await t.rpc('eth_getLogs', [{ ...query, fromBlock: toHex(mined[0]!), toBlock: toHex(mined.at(-1)!) }]))
    expect(await t.rpc('eth_getFilterChanges', [logs])).toEqual([])

    // viem polls its filter on its own timer, and gets every change without a further block.
    await pollUntil(
      async () => viemSeen.length,
      (seen) => seen >= TRANSACTIONS,
      60_000,
    )
    // ethers polls its filter when its provider sees a new block, and listens for the next block only once that poll
    // is answered: the logs of a block sealed while it polls come with the block after. A live chain always seals
    // one; this one mines on demand, so the test mines empty blocks, each once ethers has seen the one before and has
    // no poll on its way, until ethers has every log. A poll that begins after the flood's last block gets all of
    // it, and the second such block finds ethers listening, however slow the machine: the bound ends a loop that
    // would not end.
    for (let extra = 0; ethersSeen.length < TRANSACTIONS && extra < EXTRA_BLOCKS; extra++) {
      const head = await t.mine()
      await pollUntil(
        async () => ({ seen: ethersSeen.length, head: ethersHead, polls: ethersPolls }),
        ({ seen, head: seenHead, polls }) => seen >= TRANSACTIONS || (seenHead >= head && polls === 0),
        60_000,
      )
    }
    unwatch()
    await contract.removeAllListeners()
    provider.destroy()
    expect(viemSeen.map((log) => log.transactionHash)).toEqual(sent)
    expect(ethersSeen.length, `logs ethers saw with ${EXTRA_BLOCKS} blocks more`).toBe(TRANSACTIONS)
    expect(ethersSeen).toEqual(sent)
  }, 120_000)
})
