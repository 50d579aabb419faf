import { afterEach, describe, expect, it } from 'vitest'

import { keccak256 } from 'viem'

import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

/** eth_sendRawTransactionSync (EIP-7966) in each mining mode; manual mining's cases are in pending.test.ts. */

let t: TestChain | undefined

afterEach(async () => {
  await t?.close()
  t = undefined
})

type ReceiptJSON = { transactionHash: Hex; status: Hex; blockHash: Hex; blockNumber: Hex; gasUsed: Hex }

async function signTransfer(chain: TestChain, value: bigint): Promise<Hex> {
  const wallet = chain.wallet(7)
  const request = await wallet.prepareTransactionRequest({ to: chain.accounts[8]!.address, value })
  return wallet.signTransaction(request as never)
}

describe('eth_sendRawTransactionSync in every mining mode', () => {
  it('auto: answers with the receipt of the block the transaction was sealed in', async () => {
    t = await startChain({ mining: 'auto' })
    const raw = await signTransfer(t, 100n)
    const response = await t.send('eth_sendRawTransactionSync', [raw])
    expect(response.error).toBeUndefined()
    const receipt = response.result as ReceiptJSON
    const head = await t.rpc<{ hash: Hex; number: Hex; transactions: Hex[] }>('eth_getBlockByNumber', ['latest', false])
    expect(receipt).toMatchObject({
      transactionHash: keccak256(raw),
      status: '0x1',
      gasUsed: '0x5208',
      blockNumber: head.number,
      blockHash: head.hash,
    })
    expect(head.transactions).toEqual([keccak256(raw)])
    expect(await t.rpc('eth_getTransactionReceipt', [keccak256(raw)])).toEqual(receipt)
  })

  it('auto: viem sendRawTransactionSync, with the timeout as a number or a hex quantity', async () => {
    t = await startChain({ mining: 'auto' })
    const receipt = await t.publicClient.sendRawTransactionSync({ serializedTransaction: await signTransfer(t, 101n), timeout: 5_000 })
    expect(receipt.status).toBe('success')
    expect(receipt.blockNumber).toBe(await t.blockNumber())
    const raw = await signTransfer(t, 102n)
    const response = await t.send('eth_sendRawTransactionSync', [raw, toHex(5_000)])
    expect((response.result as ReceiptJSON).transactionHash).toBe(keccak256(raw))
  })

  it('interval: answers at the pre-confirmation, with the hash of the block as built so far', async () => {
    t = await startChain({ mining: 'interval' })
    const raw = await signTransfer(t, 103n)
    const receipt = (await t.rpc('eth_sendRawTransactionSync', [raw])) as ReceiptJSON
    expect(receipt).toMatchObject({ transactionHash: keccak256(raw), status: '0x1' })
    // Nothing else arrives: the block it was pre-confirmed in seals with that hash.
    for (let polls = 0; polls < 500 && (await t.blockNumber()) < BigInt(receipt.blockNumber); polls++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    const block = await t.rpc<{ hash: Hex; transactions: Hex[] }>('eth_getBlockByNumber', [receipt.blockNumber, false])
    expect(block).toMatchObject({ hash: receipt.blockHash, transactions: [keccak256(raw)] })
  })

  it('error: a timeout that is not 1 to 60000 ms is -32602, and the transaction is not sent', async () => {
    t = await startChain({ mining: 'auto' })
    const raw = await signTransfer(t, 104n)
    for (const timeout of [0, -1, 1.5, '0x0', 'soon']) {
      expect((await t.rpcError('eth_sendRawTransactionSync', [raw, timeout])).code).toBe(-32602)
    }
    for (const timeout of [60_001, '0xea61']) {
      expect(await t.rpcError('eth_sendRawTransactionSync', [raw, timeout])).toEqual({
        code: -32602,
        message: 'invalid argument 1: timeout must be from 1 to 60000 ms',
      })
    }
    expect(await t.rpc('eth_getTransactionByHash', [keccak256(raw)])).toBeNull()
  })
})
