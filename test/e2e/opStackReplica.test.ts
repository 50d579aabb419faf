/**
 * A replica of an OP Stack sequencer (`flashchain follow` of a node started with --op-stack): it runs the
 * sequencer's blocks as they were built, each opening with the L1 attributes deposit and the user deposits, its other
 * transactions paying the L1 data fee, and answers as the sequencer does, deposits and L1 fee fields included.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseEther } from 'viem'

import { createReplica } from '../../src/follow/replica.ts'
import { Store } from './fixtures/contracts.ts'
import { deploy, startChain } from './helpers.ts'
import { expectSameAnswers, result } from './replicaHelpers.ts'

import type { Hex } from 'viem'
import type { Replica } from '../../src/follow/replica.ts'
import type { TestChain } from './helpers.ts'

let sequencer: TestChain
let replica: Replica
let store: Hex

/** The GasPriceOracle predeploy: its code, and a call to it, are among the reads compared. */
const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000f'
/** An L1 account, as a deposit from L1 names its sender. */
const L1_SENDER = '0x00000000000000000000000000000000000a11ce'

beforeAll(async () => {
  sequencer = await startChain({ opStack: true })
  const source = `${sequencer.url.replace('http', 'ws')}/flashblocks`
  replica = await createReplica({ source, rpc: sequencer.url, host: '127.0.0.1', port: 0 })
  store = (await deploy(sequencer, Store, [7n])).address
  await sequencer.mine()
})

afterAll(async () => {
  await replica?.close()
  await sequencer?.close()
})

describe('a replica of an OP Stack sequencer', () => {
  test('answers as the sequencer for blocks of deposits, sent through either node, and transfers paying the L1 fee', async () => {
    let newest: Hex | undefined
    for (let round = 1; round <= 3; round++) {
      // A deposit through the replica (an owner method: forwarded) and one to the sequencer, then a transfer.
      const deposit = await result<Hex>(replica.url, 'flashchain_sendDeposit', [{ from: L1_SENDER, to: store, mint: '0x64', gas: '0x30d40' }])
      await result<Hex>(sequencer.url, 'flashchain_sendDeposit', [{ from: L1_SENDER, to: L1_SENDER, value: '0x1', gas: '0x5208' }])
      newest = await sequencer.wallet(2).sendTransaction({ to: sequencer.accounts[9]!.address, value: parseEther('0.01') })
      await sequencer.preconfirm()
      await expectSameAnswers(sequencer.url, [replica], {
        accounts: [L1_SENDER, sequencer.accounts[2]!.address],
        token: GAS_PRICE_ORACLE,
        store,
        newest,
      })
      await sequencer.mine()
      await expectSameAnswers(sequencer.url, [replica], {
        accounts: [L1_SENDER, sequencer.accounts[2]!.address],
        token: GAS_PRICE_ORACLE,
        store,
        newest,
      })
      const block = await result<{ hash: Hex; transactions: { hash: Hex; type: Hex; from: Hex }[] }>(replica.url, 'eth_getBlockByNumber', [
        'latest',
        true,
      ])
      expect(block).toEqual(await result(sequencer.url, 'eth_getBlockByNumber', ['latest', true]))
      // The L1 attributes deposit, then the two deposits in the order they were sent, then the transfer.
      expect(block.transactions.map((tx) => tx.type)).toEqual(['0x7e', '0x7e', '0x7e', '0x2'])
      expect(block.transactions[1]!.hash).toBe(deposit)
      for (const tx of block.transactions) {
        expect(await result(replica.url, 'eth_getTransactionReceipt', [tx.hash])).toEqual(
          await result(sequencer.url, 'eth_getTransactionReceipt', [tx.hash]),
        )
      }
      const receipt = await result<{ l1Fee?: Hex }>(replica.url, 'eth_getTransactionReceipt', [newest])
      expect(BigInt(receipt.l1Fee!)).toBeGreaterThan(0n)
    }
    // Three rounds minted 100 wei each and moved 1 wei from the L1 sender to itself.
    expect(BigInt(await result<Hex>(replica.url, 'eth_getBalance', [L1_SENDER, 'latest']))).toBe(300n)
  })
})
