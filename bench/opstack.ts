// What the OP Stack layer costs (run: node bench/opstack.ts; not part of `npm run bench`).
//
// 1. The L1 data fee's computation alone: FastLZ's length and Fjord's formula on each of BENCH_OP_TXS signed
//    transfers, in this process, µs per transaction.
// 2. Sent and sealed: the same BENCH_OP_TXS signed transfers (from 100 senders) sent to a plain chain and to an
//    `--op-stack` one, each started fresh with manual mining and a 300M block gas limit, then sealed by one evm_mine;
//    the two alternate for BENCH_OP_ROUNDS rounds, and the medians are reported, since the machine is noisy. On the
//    OP Stack chain each transaction also reads L1Block's four slots, pays the L1 and operator fees and credits the
//    vaults, and each block opens with its L1 attributes deposit.
//
// The pre-confirmation latency under 200 tx/s is bench/clock.ts's: BENCH_RATE=200 with and without
// BENCH_ARGS=--op-stack. Writes results/opstack-latest.json.
import { writeFileSync } from 'node:fs'

import { hexToBytes } from 'viem'

import { l1Cost } from '../src/chain/opstack/l1Cost.ts'
import { benchAccounts, fund, signTransfers } from './chain.ts'
import { openConnection, rpc, rpcBody } from './http.ts'
import { BENCH, killAllNow, startServer, stopServer } from './servers.ts'

import type { Hex } from 'viem'

const TXS = Number(process.env.BENCH_OP_TXS ?? 4000)
const ROUNDS = Number(process.env.BENCH_OP_ROUNDS ?? 3)
const SENDERS = 100
const GAS_LIMIT = 300_000_000
/** Base's L1 values of 2025-05-08, which an --op-stack genesis starts with. */
const BASE_L1 = {
  l1BaseFee: 1_600_297_986n,
  l1BlobBaseFee: 1n,
  baseFeeScalar: 2269n,
  blobBaseFeeScalar: 1_055_762n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 400n,
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** µs per transaction of the L1 fee's computation, the best of five passes over the signed transactions. */
function l1FeeMicros(raws: Uint8Array[]): number {
  let best = Number.POSITIVE_INFINITY
  for (let pass = 0; pass < 5; pass++) {
    const started = performance.now()
    let sum = 0n
    for (const raw of raws) sum += l1Cost(raw, BASE_L1).fee
    const took = performance.now() - started
    if (sum <= 0n) throw new Error('no L1 fee computed')
    best = Math.min(best, took)
  }
  return (best * 1000) / raws.length
}

/** Sends every transfer on four connections, then seals them in one evm_mine; sealed transactions a second. */
async function sentAndSealed(opStack: boolean, signed: Hex[][]): Promise<number> {
  const server = await startServer('flashchain', {
    mining: 'manual',
    args: ['--block-gas-limit', String(GAS_LIMIT), ...(opStack ? ['--op-stack'] : [])],
  })
  try {
    const control = openConnection(server.port)
    const senders = benchAccounts(0, SENDERS)
    await fund(
      control,
      'manual',
      senders.map((account) => account.address),
      10n ** 18n,
    )
    const connections = Array.from({ length: 4 }, () => openConnection(server.port))
    const started = performance.now()
    const perSender = signed[0]!.length
    await Promise.all(
      connections.map(async (connection, c) => {
        for (let nonce = 0; nonce < perSender; nonce++) {
          for (let s = c; s < SENDERS; s += connections.length) {
            const answer = JSON.parse(await connection.post(rpcBody('eth_sendRawTransaction', [signed[s]![nonce]!]))) as { error?: unknown }
            if (answer.error !== undefined) throw new Error(`refused: ${JSON.stringify(answer.error)}`)
          }
        }
      }),
    )
    await rpc(control, 'evm_mine')
    const took = performance.now() - started
    const block = await rpc<{ transactions: Hex[] }>(control, 'eth_getBlockByNumber', ['latest', false])
    const expected = SENDERS * perSender + (opStack ? 1 : 0)
    if (block.transactions.length !== expected) throw new Error(`sealed ${block.transactions.length} transactions, not ${expected}`)
    for (const connection of [control, ...connections]) connection.close()
    return (SENDERS * perSender) / (took / 1000)
  } finally {
    await stopServer(server)
  }
}

async function main() {
  const perSender = Math.ceil(TXS / SENDERS)
  console.log(`signing ${SENDERS * perSender} transfers…`)
  const signed = await signTransfers(benchAccounts(0, SENDERS), perSender)
  const micros = l1FeeMicros(signed.flat().map((raw) => hexToBytes(raw)))
  console.log(`L1 data fee of a signed transfer: ${micros.toFixed(2)} µs`)
  const plain: number[] = []
  const rollup: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    plain.push(await sentAndSealed(false, signed))
    rollup.push(await sentAndSealed(true, signed))
    console.log(`round ${round + 1}: plain ${plain.at(-1)!.toFixed(0)} tx/s, --op-stack ${rollup.at(-1)!.toFixed(0)} tx/s`)
  }
  const result = {
    date: new Date().toISOString(),
    transactions: SENDERS * perSender,
    l1FeeMicrosPerTransaction: Math.round(micros * 100) / 100,
    sentAndSealed: { plain, opStack: rollup, medianPlain: median(plain), medianOpStack: median(rollup) },
  }
  console.log(`sent and sealed, medians: plain ${median(plain).toFixed(0)} tx/s, --op-stack ${median(rollup).toFixed(0)} tx/s`)
  writeFileSync(`${BENCH}results/opstack-latest.json`, `${JSON.stringify(result, null, 2)}\n`)
}

main().catch((error) => {
  console.error(error)
  killAllNow()
  process.exit(1)
})
