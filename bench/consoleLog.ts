// What the terminal log's console.log capture costs the block producer. A chain that logs listens to every message
// its producer's EVM runs (src/chain/production/consoleCalls.ts); this times the pre-confirmation of a pool of
// transactions that never call console.log, on a chain that logs and on one that does not (--quiet), and, given
// another checkout's path, on that checkout's chain that logs: `node bench/consoleLog.ts [../other-checkout]`.
// Each round fills the pool with BENCH_TRANSACTIONS (default 1000) ETH transfers, then as many ERC20 transfers, and
// times one flashchain_preconfirm for each (per transaction it ran); the chains take turns, BENCH_ROUNDS (default 7) times, and the medians
// are printed. Every chain is in memory, on manual mining, with no execution workers (calls are not measured).
// Since a busy machine moves those figures by more than the listener costs, the listener is also timed alone: what
// it adds to each message the EVM runs that is not to console.sol, over BENCH_MESSAGES (default 10 million) calls.
import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

import { encodeDeployData, encodeFunctionData } from 'viem'

import { collectConsoleCalls } from '../src/chain/production/consoleCalls.ts'

import type { VM } from '@ethereumjs/vm'
import type { createFlashchain as CreateFlashchain, Flashchain } from '../src/index.ts'

const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 1000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000_000)
const token = JSON.parse(readFileSync(new URL('./contracts/BenchToken.json', import.meta.url), 'utf8')) as { abi: never[]; bytecode: `0x${string}` }
const from = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const to = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

type Variant = { name: string; flashchain: Flashchain; token: `0x${string}`; eth: number[]; erc20: number[] }

async function start(root: URL, name: string, log: ((line: string) => void) | undefined): Promise<Variant> {
  const { createFlashchain } = (await import(new URL('src/index.ts', root).href)) as { createFlashchain: typeof CreateFlashchain }
  const flashchain = await createFlashchain({ port: 0, mining: 'manual', workers: 0, log })
  const deploy = await flashchain.request({
    method: 'eth_sendTransaction',
    params: [{ from, data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 30n] } as never) }],
  })
  await flashchain.request({ method: 'evm_mine' })
  const receipt = (await flashchain.request({ method: 'eth_getTransactionReceipt', params: [deploy] })) as { contractAddress: `0x${string}` }
  return { name, flashchain, token: receipt.contractAddress, eth: [], erc20: [] }
}

/**
 * Fills the pool with BENCH_TRANSACTIONS transactions, times the flashblock that runs them, and seals the block:
 * µs per transaction the flashblock took (fewer than sent when the block's gas limit is reached first).
 */
async function timePreconfirm(flashchain: Flashchain, transaction: (i: number) => Record<string, string>): Promise<number> {
  for (let i = 0; i < TRANSACTIONS; i++) await flashchain.request({ method: 'eth_sendTransaction', params: [{ from, ...transaction(i) }] })
  const t = performance.now()
  await flashchain.request({ method: 'flashchain_preconfirm' })
  const ms = performance.now() - t
  const pending = (await flashchain.request({ method: 'eth_getBlockByNumber', params: ['pending', false] })) as { transactions: unknown[] }
  // The rest of the pool goes into the blocks evm_mine seals, untimed.
  while (((await flashchain.request({ method: 'txpool_status' })) as { pending: string }).pending !== '0x0') {
    await flashchain.request({ method: 'evm_mine' })
  }
  await flashchain.request({ method: 'evm_mine' })
  return (ms * 1000) / pending.transactions.length
}

const here = new URL('../', import.meta.url)
const variants = [await start(here, 'this checkout, log on', () => {}), await start(here, 'this checkout, --quiet', undefined)]
const other = process.argv[2]
if (other !== undefined) variants.push(await start(pathToFileURL(`${resolve(other)}/`), `${other}, log on`, () => {}))

for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    variant.eth.push(await timePreconfirm(variant.flashchain, (i) => ({ to, value: `0x${(i + 1).toString(16)}`, gas: '0x5208' })))
    const transfer = (i: number) => encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [to, BigInt(i + 1)] } as never)
    variant.erc20.push(await timePreconfirm(variant.flashchain, (i) => ({ to: variant.token, data: transfer(i), gas: '0x10000' })))
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
console.log(`one flashblock of up to ${TRANSACTIONS} transactions, µs per transaction, median of ${ROUNDS} rounds:`)
for (const variant of variants) {
  const perTransaction = (values: number[]) => median(values).toFixed(1).padStart(7)
  console.log(`  ${variant.name.padEnd(40)} ETH transfers ${perTransaction(variant.eth)}   ERC20 transfers ${perTransaction(variant.erc20)}`)
}
await Promise.all(variants.map((variant) => variant.flashchain.close()))

// The listener alone, called as the EVM calls it, on a message to an ordinary contract.
const events = new EventEmitter()
collectConsoleCalls({ events } as unknown as VM['evm'])
const listener = events.listeners('beforeMessage')[0] as (message: unknown) => void
const message = { to: { bytes: Uint8Array.from(Buffer.from(to.slice(2), 'hex')) }, data: new Uint8Array(68) }
for (let i = 0; i < 100_000; i++) listener(message)
const t = performance.now()
for (let i = 0; i < MESSAGES; i++) listener(message)
console.log(`the console.log listener on a message elsewhere: ${(((performance.now() - t) * 1e6) / MESSAGES).toFixed(1)} ns`)
