import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterEach, describe, expect, test } from 'vitest'

import { createFlashchain } from '../../src/index.ts'

// A data dir written by flashchain before blocks were split into rows (up to commit d8c1d81), and what that
// flashchain answered about it: fixtures/wholeBlocksStore.make.ts made both.
const FIXTURE = new URL('./fixtures/wholeBlocksStore/', import.meta.url)
const answers = (await import('./fixtures/wholeBlocksStore/answers.json', { with: { type: 'json' } })).default as {
  head: number
  contractAddress: string
  blocks: unknown[]
  receipts: unknown[]
  transactions: { hash: string }[]
  logs: unknown[]
  logsOfTopic: unknown[]
  balance: string
}

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function open(dataDir: string, lines: string[]) {
  const node = await createFlashchain({ dataDir, mining: 'manual', port: 0, workers: 0, log: (line: string) => lines.push(line) })
  const call = (method: string, params: unknown[] = []) => node.request({ method, params } as never) as Promise<unknown>
  return { node, call }
}

const hex = (n: number) => `0x${n.toString(16)}`
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

/** Everything answers.json holds, asked again. */
async function ask(call: (method: string, params?: unknown[]) => Promise<unknown>) {
  const numbers = Array.from({ length: answers.head + 1 }, (_, n) => hex(n))
  return {
    head: Number(await call('eth_blockNumber')),
    contractAddress: answers.contractAddress,
    blocks: await Promise.all(numbers.map((n) => call('eth_getBlockByNumber', [n, true]))),
    receipts: await Promise.all(numbers.map((n) => call('eth_getBlockReceipts', [n]))),
    transactions: await Promise.all(answers.transactions.map((tx) => call('eth_getTransactionByHash', [tx.hash]))),
    logs: await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]),
    logsOfTopic: await call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [word(2)] }]),
    balance: await call('eth_getBalance', ['0x00000000000000000000000000000000000b0b0b', 'latest']),
  }
}

describe('a data dir that kept its blocks whole', () => {
  test('is split into rows at its first start, once, and answers as the flashchain that wrote it did', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-split-'))
    dirs.push(dataDir)
    cpSync(new URL('chain.sqlite', FIXTURE), join(dataDir, 'chain.sqlite'))
    const lines: string[] = []
    const first = await open(dataDir, lines)
    try {
      expect(lines.filter((line) => line.startsWith('rewrote'))).toEqual([expect.stringMatching(/^rewrote the store's 7 blocks as rows, once/)])
      expect(answers.logs).toHaveLength(16)
      expect(await ask(first.call)).toEqual(answers)
      for (const { hash } of answers.transactions) {
        const receipt = (await first.call('eth_getTransactionReceipt', [hash])) as { blockNumber: string; transactionIndex: string }
        const inBlock = (answers.receipts[Number(receipt.blockNumber)] as unknown[])[Number(receipt.transactionIndex)]
        expect(receipt).toEqual(inBlock)
      }
    } finally {
      await first.node.close()
    }

    const second = await open(dataDir, lines)
    try {
      expect(lines.filter((line) => line.startsWith('rewrote'))).toHaveLength(1)
      expect(await ask(second.call)).toEqual(answers)
      // A block sealed now is kept as rows, and its logs are found beside the rewritten ones'.
      const { contractAddress } = answers
      await second.call('anvil_impersonateAccount', [contractAddress])
      await second.call('anvil_setBalance', [contractAddress, '0xde0b6b3a7640000'])
      const hash = (await second.call('eth_sendTransaction', [
        { from: contractAddress, to: contractAddress, data: word(2), gas: '0xea60' },
      ])) as string
      await second.call('evm_mine')
      const logs = (await second.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [word(2)] }])) as { transactionHash: string }[]
      expect(logs.map((log) => log.transactionHash)).toEqual([
        ...answers.logsOfTopic.map((log) => (log as { transactionHash: string }).transactionHash),
        hash,
        hash,
      ])
    } finally {
      await second.node.close()
    }
  })
})
