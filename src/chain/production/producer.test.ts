import { hexToBytes } from '@ethereumjs/util'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test, vi } from 'vitest'

import { createChain } from '../chain.ts'
import { deriveAccounts } from '../spec/accounts.ts'
import { TRIE_WRITES_PER_TURN } from '../../runtime/eventLoop.ts'
import { trieWork } from '../state/trie.ts'
import { fundedGenesis } from '../testing/fixtures.ts'

import type { TransactionRejectedError } from '../errors.ts'
import type { Hex } from '../../hex.ts'

const accounts = deriveAccounts('test test test test test test test test test test test junk', 3)
const genesis = fundedGenesis(accounts)
// A contract that stores calldata word 0 at slot 0 and logs it:
// PUSH1 0 CALLDATALOAD DUP1 PUSH1 0 SSTORE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 LOG0 STOP (16 bytes), and the init code
// PUSH16 <runtime> PUSH1 0 MSTORE PUSH1 16 PUSH1 16 RETURN that returns it.
const runtime = '6000358060005560005260206000a000'
const initCode = `0x6f${runtime}60005260106010f3` as Hex

describe('producer', () => {
  test('sealed blocks re-execute to their headers: an independent import of them agrees on every root', async () => {
    const chain = await createChain({ genesis, mining: 'manual' })
    const sign = (from: number, nonce: number, fields: { to?: Hex; value?: bigint; data?: Hex; gas?: bigint }) =>
      privateKeyToAccount(accounts[from]!.privateKey).signTransaction({
        chainId: 31337,
        type: 'eip1559',
        nonce,
        gas: fields.gas ?? 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n + BigInt(from),
        to: fields.to,
        value: fields.value ?? 0n,
        data: fields.data,
      })
    try {
      // Block 1: a deployment and transfers from three senders, over two flashblocks.
      await chain.pool.sendRawTransaction(hexToBytes(await sign(0, 0, { data: initCode, gas: 200_000n })))
      for (let nonce = 0; nonce < 5; nonce++) {
        await chain.pool.sendRawTransaction(hexToBytes(await sign(1, nonce, { to: accounts[2]!.address, value: BigInt(nonce + 1) })))
      }
      await chain.producer.preconfirm()
      for (let nonce = 0; nonce < 3; nonce++) {
        await chain.pool.sendRawTransaction(hexToBytes(await sign(2, nonce, { to: accounts[0]!.address, value: 7n })))
      }
      const first = await chain.producer.mine()
      expect(first.transactions).toHaveLength(9)
      // Ordered by tip across senders: the deployment (lowest tip) is not first.
      const contract = first.receipts.find((receipt) => receipt.contractAddress !== null)!.contractAddress!

      // Block 2: calls that write storage and log.
      for (let nonce = 1; nonce < 4; nonce++) {
        await chain.pool.sendRawTransaction(
          hexToBytes(await sign(0, nonce, { to: contract, data: `0x${nonce.toString(16).padStart(64, '0')}`, gas: 100_000n })),
        )
      }
      const second = await chain.producer.mine()
      expect(second.transactions).toHaveLength(3)
      expect(second.receipts.map((receipt) => [receipt.status, receipt.logs.length])).toEqual([
        [1, 1],
        [1, 1],
        [1, 1],
      ])
      expect(first.receipts.map((receipt) => receipt.status)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1])

      const importer = await createChain({
        genesis,
        mining: 'manual',
        importBlocks: Uint8Array.from([...chain.blocks.rawBlock(1n)!, ...chain.blocks.rawBlock(2n)!]),
      })
      try {
        expect(importer.blocks.head().hash).toBe(second.hash)
        expect(importer.blocks.block(1n)!).toEqual(first)
        expect(importer.blocks.head().receipts.map((receipt) => receipt.cumulativeGasUsed)).toEqual(
          second.receipts.map((receipt) => receipt.cumulativeGasUsed),
        )
      } finally {
        await importer.close()
      }
    } finally {
      await chain.close()
    }
  })

  test('a flashblock bounded in time takes what it executes by then, at least one, and the rest waits for the next', async () => {
    const chain = await createChain({ genesis, mining: 'manual' })
    try {
      const hashes: Hex[] = []
      for (const [from, tip] of [
        [0, 3n],
        [1, 5n],
        [2, 4n],
      ] as const) {
        for (let nonce = 0; nonce < 2; nonce++) {
          const raw = await privateKeyToAccount(accounts[from]!.privateKey).signTransaction({
            chainId: 31337,
            type: 'eip1559',
            nonce,
            gas: 21_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: tip * 10n ** 9n,
            to: accounts[(from + 1) % 3]!.address,
            value: 1n,
          })
          hashes.push(await chain.pool.sendRawTransaction(hexToBytes(raw)))
        }
      }
      // A deadline already past: one transaction, the best paying, and the other five stay pending in the pool.
      const first = await chain.producer.preconfirm({ until: performance.now() - 1 })
      expect(first.transactions.map((tx) => tx.hash)).toEqual([hashes[2]])
      expect(chain.pool.content().pending).toHaveLength(5)
      // One more with a past deadline takes the next in the block's order (the same sender's next nonce pays most).
      const second = await chain.producer.preconfirm({ until: performance.now() - 1 })
      expect(second.transactions.slice(1).map((tx) => tx.hash)).toEqual([hashes[3]])
      // Without a deadline, everything left, in the order a block takes it.
      const third = await chain.producer.preconfirm()
      expect(third.transactions.slice(2).map((tx) => tx.hash)).toEqual([hashes[4], hashes[5], hashes[0], hashes[1]])
      expect(chain.pool.content().pending).toHaveLength(0)
    } finally {
      await chain.close()
    }
  })

  test("a seal gives the event loop turns: no stretch of trie writes longer than two turns' worth runs without one", async () => {
    const chain = await createChain({ genesis, mining: 'manual' })
    try {
      const sender = privateKeyToAccount(accounts[1]!.privateKey)
      // 200 transfers to 200 new accounts: 200 new leaves of the state trie, and the nodes above them.
      for (let nonce = 0; nonce < 200; nonce++) {
        const to = `0x${(0xa000 + nonce).toString(16).padStart(40, '0')}` as Hex
        const raw = await sender.signTransaction({
          chainId: 31337,
          type: 'eip1559',
          nonce,
          gas: 21_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
          to,
          value: 1n,
        })
        await chain.pool.sendRawTransaction(hexToBytes(raw))
      }
      trieWork.count = 0
      await chain.producer.preconfirm()
      // The transactions and receipts tries grow with each flashblock, once it is visible: 200 entries each here.
      expect(trieWork.count).toBeGreaterThanOrEqual(400)
      // What an incoming request needs is a turn of the event loop: count the tries' work (state/trie.ts) between turns.
      let done = false
      let turns = 0
      let longest = 0
      let total = 0
      const turn = () => {
        longest = Math.max(longest, trieWork.count)
        total += trieWork.count
        trieWork.count = 0
        if (done) return
        turns++
        setImmediate(turn)
      }
      trieWork.count = 0
      setImmediate(turn)
      const block = await chain.producer.mine()
      done = true
      turn()
      expect(block.transactions).toHaveLength(200)
      // At least the 202 accounts written (the sender, the 200 recipients, the fee recipient), and their nodes hashed.
      expect(total).toBeGreaterThan(400)
      expect(longest).toBeLessThanOrEqual(TRIE_WRITES_PER_TURN)
      expect(turns).toBeGreaterThan(total / (2 * TRIE_WRITES_PER_TURN))
      // The end of one stretch and the start of the next share a turn; a trie written in one piece would be all of it.
      expect(longest).toBeGreaterThan(0)
      expect(longest).toBeLessThanOrEqual(2 * TRIE_WRITES_PER_TURN)
    } finally {
      await chain.close()
    }
  })

  test('the clock executes the pool ahead of each flashblock and publishes at the deadline; what it took stays pending and cannot be replaced until then', async () => {
    const chain = await createChain({ genesis, mining: 'manual', flashblockInterval: 200 })
    const sender = privateKeyToAccount(accounts[1]!.privateKey)
    const transfer = (nonce: number, tip: bigint) =>
      sender.signTransaction({
        chainId: 31337,
        type: 'eip1559',
        nonce,
        gas: 21_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: tip,
        to: accounts[2]!.address,
        value: 1n,
      })
    const flashblocks: Hex[][] = []
    const stop = chain.events.subscribe((event) => {
      if (event.type === 'flashblock' && event.first < event.block.transactions.length) {
        flashblocks.push(event.block.transactions.slice(event.first).map((tx) => tx.hash))
      }
    })
    const turns = async (count: number) => {
      for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve))
    }
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] })
    try {
      await chain.producer.setIntervalMining(60_000)
      const first = await chain.pool.sendRawTransaction(hexToBytes(await transfer(0, 10n ** 9n)))
      const underpriced = hexToBytes(await transfer(0, 10n ** 9n + 1n))

      // The clock fires every 200 ms, 50 ms before its flashblock is due, and takes what the pool holds.
      vi.advanceTimersByTime(200)
      let refusal = ''
      for (let attempt = 0; attempt < 200 && refusal !== 'nonceTooLow'; attempt++) {
        await turns(1)
        refusal = await chain.pool.sendRawTransaction(underpriced).then(
          () => 'accepted',
          (error: TransactionRejectedError) => error.reason.kind,
        )
      }
      // Taken: a replacement is refused as the nonce is used, not as underpriced; the transaction is still pending.
      expect(refusal).toBe('nonceTooLow')
      expect(flashblocks).toEqual([])
      expect(chain.blocks.transaction(first)?.kind).toBe('pool')
      await expect(chain.pool.sendRawTransaction(hexToBytes(await transfer(0, 10n ** 9n)))).rejects.toMatchObject({
        reason: { kind: 'alreadyKnown' },
      })
      expect(chain.pool.dropTransactions([first])).toEqual([])
      // The sender's next nonce still joins the same flashblock.
      const second = await chain.pool.sendRawTransaction(hexToBytes(await transfer(1, 10n ** 9n)))

      vi.advanceTimersByTime(50)
      for (let attempt = 0; attempt < 200 && flashblocks.length === 0; attempt++) await turns(1)
      expect(flashblocks).toEqual([[first, second]])
      expect(chain.blocks.transaction(first)?.kind).toBe('preconfirmed')
      expect(chain.blocks.transaction(second)?.kind).toBe('preconfirmed')
    } finally {
      // A flashblock left waiting on a fake timer would hold the clock's stop forever.
      vi.runOnlyPendingTimers()
      vi.useRealTimers()
      stop()
      await chain.producer.setIntervalMining(0)
      await chain.close()
    }
  })
})
