// How flashchain's costs grow with its chain, beside anvil on the same machine and the same transactions.
//
// Both chains get the same signed transactions (ETH and ERC20 transfers from 100 senders to fresh recipients, one
// of them a watched address that receives a token transfer in every block) in blocks of BENCH_GROWTH_BLOCK
// transactions under a 300M gas limit, sealed by evm_mine. At each checkpoint of BENCH_GROWTH_AT transactions the
// bench reads, one request at a time on one connection: a balance, the receipt of a random earlier transaction, a
// random block with hashes only, and the watched address's Transfers over the last 100 blocks. Both resident sets are
// read 5 and 35 s after the load; then flashchain is restarted from its data dir (anvil keeps no chain across a
// restart) and its resident set read again 35 s after.
//
//   node bench/growth.ts                                      # checkpoints 20k, 50k, 100k, 200k (about 15 minutes)
//   BENCH_GROWTH_AT=5000,20000 BENCH_GROWTH_BLOCK=2000 node bench/growth.ts
//   BENCH_GROWTH_DIR=/some/dir node bench/growth.ts            # keeps flashchain's data dir there
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { keccak256, toHex, type Hex } from 'viem'

import { CHAIN_ID, addressStream, benchAccounts, deployToken, dev, signTransfer, transferData } from './chain.ts'
import { openConnection, rpc, rpcBody, type Connection } from './http.ts'
import { BENCH, killAllNow, rssMB, sleep, startServer, stopAll, stopServer, unavailable, type Server } from './servers.ts'

const CHECKPOINTS = (process.env.BENCH_GROWTH_AT ?? '20000,50000,100000,200000').split(',').map(Number)
const BLOCK_TXS = Number(process.env.BENCH_GROWTH_BLOCK ?? 5000)
const GAS_LIMIT = 300_000_000
const SENDERS = 100
const SEND_BATCH = 250
const SAMPLES = { balance: 200, receipt: 200, block: 40, logs: 20 }
const REST_MS = 5000
/** Long enough for flashchain's memory trim, which collects at most once per 30 s (runtime/memoryTrim.ts). */
const SETTLE_MS = 35_000
const MAX_FEE = 100_000_000_000n
const TIP = 1_000_000_000n
const TRANSFER_TOPIC = keccak256(toHex('Transfer(address,address,uint256)'))
/** Receives one token transfer in every block: the log query's subject. */
const WATCHED: Hex = '0x00000000000000000000000000000000000b0b0b'

type Peer = { name: 'flashchain' | 'anvil'; server: Server; connection: Connection; dataDir?: string }
type Row = {
  txs: number
  blocks: number
  balanceMs: Record<string, number>
  receiptMs: Record<string, number>
  blockMs: Record<string, number>
  logsMs: Record<string, number>
  throughput: Record<string, number>
  rssMB: Record<string, number>
  settledMB: Record<string, number>
  restartMs?: number
  rssAfterRestartMB?: number
  databaseMB?: number
}

const senders = benchAccounts(200_000, SENDERS)
const nonces = new Array<number>(SENDERS).fill(0)
const recipient = addressStream(7)
const sent: Hex[] = []

async function start(name: Peer['name'], dataDir?: string): Promise<Peer> {
  const args = name === 'anvil' ? ['--gas-limit', String(GAS_LIMIT), '--no-mining'] : ['--block-gas-limit', String(GAS_LIMIT)]
  const server = await startServer(name, { mining: 'manual', args, dataDir })
  return { name, server, connection: openConnection(server.port), dataDir }
}

/** Sends raw transactions in JSON-RPC batches; every one must be accepted. */
async function sendAll(peer: Peer, raws: Hex[]): Promise<void> {
  for (let at = 0; at < raws.length; at += SEND_BATCH) {
    const body = `[${raws
      .slice(at, at + SEND_BATCH)
      .map((raw) => rpcBody('eth_sendRawTransaction', [raw]))
      .join(',')}]`
    const answers = JSON.parse(await peer.connection.post(body)) as { error?: { message: string } }[]
    const refused = answers.find((answer) => answer.error !== undefined)
    if (refused !== undefined) throw new Error(`${peer.name} refused a transaction: ${refused.error!.message}`)
  }
}

/** Seals until the pool is empty. */
async function mineAll(peer: Peer): Promise<void> {
  let last: unknown
  for (let i = 0; i < 20; i++) {
    await rpc(peer.connection, 'evm_mine')
    const status = await rpc<{ pending: Hex; queued: Hex }>(peer.connection, 'txpool_status')
    if (BigInt(status.pending) === 0n && BigInt(status.queued) === 0n) return
    last = [status, await rpc(peer.connection, 'txpool_inspect')]
  }
  throw new Error(`${peer.name}: the pool did not empty after 20 blocks: ${JSON.stringify(last)}`)
}

/** One block's transactions: each sender's next, ETH and ERC20 transfers in turn, the first to WATCHED. */
async function signBlock(token: Hex, count: number): Promise<Hex[]> {
  const raws: Hex[] = []
  for (let i = 0; i < count; i++) {
    const s = i % SENDERS
    const account = senders[s]!
    const nonce = nonces[s]!++
    const to = i === 0 ? WATCHED : recipient()
    const raw =
      i % 2 === 0
        ? await account.signTransaction({
            chainId: CHAIN_ID,
            type: 'eip1559',
            nonce,
            to: token,
            data: transferData(to, 1n),
            gas: 60_000n,
            maxFeePerGas: MAX_FEE,
            maxPriorityFeePerGas: TIP,
          })
        : await signTransfer(account, nonce, to, 1n)
    raws.push(raw)
    sent.push(keccak256(raw))
  }
  return raws
}

function p50(samples: number[]): number {
  const sorted = samples.toSorted((a, b) => a - b)
  return Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(2))
}

async function timed(peer: Peer, count: number, request: () => [string, unknown[]], check: (result: unknown) => void): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const [method, params] = request()
    const t0 = performance.now()
    const result = await rpc(peer.connection, method, params)
    samples.push(performance.now() - t0)
    check(result)
  }
  return p50(samples)
}

const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!

async function readings(peer: Peer, token: Hex, head: number, rounds: number) {
  const from = Math.max(1, head - 99)
  return {
    balance: await timed(
      peer,
      SAMPLES.balance,
      () => ['eth_getBalance', [WATCHED, 'latest']],
      () => {},
    ),
    receipt: await timed(
      peer,
      SAMPLES.receipt,
      () => ['eth_getTransactionReceipt', [pick(sent)]],
      (receipt) => {
        if (receipt === null) throw new Error(`${peer.name}: a sealed transaction has no receipt`)
      },
    ),
    block: await timed(
      peer,
      SAMPLES.block,
      () => ['eth_getBlockByNumber', [toHex(1 + Math.floor(Math.random() * head)), false]],
      (block) => {
        if (block === null) throw new Error(`${peer.name}: a sealed block is missing`)
      },
    ),
    logs: await timed(
      peer,
      SAMPLES.logs,
      () => [
        'eth_getLogs',
        [{ address: token, topics: [TRANSFER_TOPIC, null, `0x${WATCHED.slice(2).padStart(64, '0')}`], fromBlock: toHex(from), toBlock: toHex(head) }],
      ],
      (logs) => {
        // The watched address got one transfer per round; rounds are at least a block each.
        if (!Array.isArray(logs) || logs.length === 0 || logs.length > rounds) throw new Error(`${peer.name}: ${JSON.stringify(logs).slice(0, 200)}`)
      },
    ),
  }
}

function sizeMB(dir: string): number {
  let bytes = 0
  for (const name of readdirSync(dir)) bytes += statSync(join(dir, name)).size
  return Number((bytes / 2 ** 20).toFixed(1))
}

async function main() {
  const names: Peer['name'][] = ['flashchain', 'anvil']
  for (const name of names) {
    const why = unavailable(name)
    if (why !== undefined) throw new Error(why)
  }
  // BENCH_GROWTH_DIR keeps flashchain's chain there after the run, for profiling its restart.
  const kept = process.env.BENCH_GROWTH_DIR
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'flashchain-growth-'))
  const peers: Peer[] = [await start('flashchain', dataDir), await start('anvil')]
  const rows: Row[] = []
  let token: Hex | undefined
  let rounds = 0
  try {
    for (const peer of peers) {
      const address = await deployToken(peer.connection, 'manual')
      if (token !== undefined && address !== token) throw new Error('the token landed at different addresses')
      token = address
    }
    // Each sender gets ETH and tokens from dev account 0 (its nonce 1 on, after the deployment).
    const funding: Hex[] = []
    for (const [i, account] of senders.entries()) {
      funding.push(await signTransfer(dev, 1 + 2 * i, account.address, 10n ** 19n))
      funding.push(
        await dev.signTransaction({
          chainId: CHAIN_ID,
          type: 'eip1559',
          nonce: 2 + 2 * i,
          to: token!,
          data: transferData(account.address, 10n ** 24n),
          gas: 60_000n,
          maxFeePerGas: MAX_FEE,
          maxPriorityFeePerGas: TIP,
        }),
      )
    }
    for (const peer of peers) {
      await sendAll(peer, funding)
      await mineAll(peer)
    }

    let txs = 0
    const sealSeconds: Record<string, number> = { flashchain: 0, anvil: 0 }
    for (const target of [0, ...CHECKPOINTS]) {
      let grown = 0
      while (txs < target) {
        const raws = await signBlock(token!, Math.min(BLOCK_TXS, target - txs))
        for (const peer of peers) {
          const t0 = performance.now()
          await sendAll(peer, raws)
          await mineAll(peer)
          sealSeconds[peer.name]! += (performance.now() - t0) / 1000
        }
        txs += raws.length
        grown += raws.length
        rounds++
      }
      const row: Row = { txs, blocks: 0, balanceMs: {}, receiptMs: {}, blockMs: {}, logsMs: {}, throughput: {}, rssMB: {}, settledMB: {} }
      for (const peer of peers) {
        const head = Number(await rpc<Hex>(peer.connection, 'eth_blockNumber'))
        row.blocks = head
        if (txs > 0) {
          const read = await readings(peer, token!, head, rounds)
          row.balanceMs[peer.name] = read.balance
          row.receiptMs[peer.name] = read.receipt
          row.blockMs[peer.name] = read.block
          row.logsMs[peer.name] = read.logs
        }
        if (grown > 0) row.throughput[peer.name] = Math.round(grown / sealSeconds[peer.name]!)
        sealSeconds[peer.name] = 0
      }
      await sleep(REST_MS)
      for (const peer of peers) row.rssMB[peer.name] = Math.round(rssMB(peer.server.pid))
      await sleep(SETTLE_MS - REST_MS)
      for (const peer of peers) row.settledMB[peer.name] = Math.round(rssMB(peer.server.pid))
      const flashchain = peers[0]!
      flashchain.connection.close()
      await stopServer(flashchain.server)
      row.databaseMB = sizeMB(dataDir)
      const restarted = await start('flashchain', dataDir)
      row.restartMs = Math.round(restarted.server.startupMs)
      peers[0] = restarted
      // At rest as after the load: past the memory trim's first collection (the state trie builds after the start).
      await sleep(SETTLE_MS)
      row.rssAfterRestartMB = Math.round(rssMB(restarted.server.pid))
      rows.push(row)
      console.log(JSON.stringify(row))
    }
  } finally {
    for (const peer of peers) peer.connection.close()
    await stopAll()
    if (kept === undefined) rmSync(dataDir, { recursive: true, force: true })
  }
  print(rows)
  writeFileSync(`${BENCH}results/growth-latest.json`, `${JSON.stringify({ date: new Date().toISOString(), blockTxs: BLOCK_TXS, rows }, null, 2)}\n`)
}

function print(rows: Row[]) {
  const cell = (row: Row, field: 'balanceMs' | 'receiptMs' | 'blockMs' | 'logsMs' | 'throughput' | 'rssMB' | 'settledMB') =>
    `${row[field].flashchain ?? '–'} / ${row[field].anvil ?? '–'}`
  const lines = [
    `| flashchain / anvil | ${rows.map((row) => `${row.txs} txs`).join(' | ')} |`,
    `|---|${rows.map(() => '---').join('|')}|`,
    `| eth_getBalance p50, ms | ${rows.map((row) => cell(row, 'balanceMs')).join(' | ')} |`,
    `| receipt of a random old hash p50, ms | ${rows.map((row) => cell(row, 'receiptMs')).join(' | ')} |`,
    `| block by number, hashes only p50, ms | ${rows.map((row) => cell(row, 'blockMs')).join(' | ')} |`,
    `| eth_getLogs, 100 blocks, one recipient p50, ms | ${rows.map((row) => cell(row, 'logsMs')).join(' | ')} |`,
    `| sent and sealed, tx/s since the last column | ${rows.map((row) => cell(row, 'throughput')).join(' | ')} |`,
    `| RSS 5 s after the load, MB | ${rows.map((row) => cell(row, 'rssMB')).join(' | ')} |`,
    `| RSS 35 s after the load, MB | ${rows.map((row) => cell(row, 'settledMB')).join(' | ')} |`,
    `| flashchain restart to first answer, ms | ${rows.map((row) => row.restartMs ?? '–').join(' | ')} |`,
    `| flashchain RSS 35 s after a restart, MB | ${rows.map((row) => row.rssAfterRestartMB ?? '–').join(' | ')} |`,
    `| flashchain database, MB | ${rows.map((row) => row.databaseMB ?? '–').join(' | ')} |`,
  ]
  console.log(lines.join('\n'))
}

process.once('SIGINT', () => {
  killAllNow()
  process.exit(130)
})
main().catch(async (error) => {
  console.error(error)
  await stopAll()
  process.exitCode = 1
})
