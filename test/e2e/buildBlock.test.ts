/**
 * testing_buildBlockV1 (execution-apis): the block that would follow the head, built with a consensus layer's
 * attributes and kept nowhere. Checked against the block the chain seals with the same environment and transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { getAddress } from 'viem'

import { startChain, toHex } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
const recipient = '0x00000000000000000000000000000000000e0e0e'
const feeRecipient = '0x00000000000000000000000000000000000fee00'
const prevRandao = `0x${'ab'.repeat(32)}` as Hex
const ZERO_HASH = `0x${'00'.repeat(32)}` as Hex

type Payload = {
  executionPayload: Record<string, unknown> & { blockHash: Hex; transactions: Hex[]; gasLimit: Hex }
  blockValue: Hex
  blobsBundle: unknown
  executionRequests: Hex[]
  shouldOverrideBuilder: boolean
}
type BlockJSON = Record<string, unknown> & { hash: Hex; number: Hex; timestamp: Hex; gasLimit: Hex }

beforeAll(async () => {
  t = await startChain()
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

const latest = () => t.rpc<BlockJSON>('eth_getBlockByNumber', ['latest', false])

/** A signed transfer from dev account 1 at `nonce`, as raw bytes. */
async function transfer(nonce: number, value = 5n): Promise<Hex> {
  return t.accounts[1]!.signTransaction({
    chainId: t.chain.id,
    to: recipient,
    value,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
  })
}

function attributes(timestamp: bigint, withdrawals: unknown[] = []) {
  return { timestamp: toHex(timestamp), prevRandao, suggestedFeeRecipient: feeRecipient, withdrawals, parentBeaconBlockRoot: ZERO_HASH }
}

describe('testing_buildBlockV1', () => {
  it('builds the block the chain would seal with the same environment: the same header, hash and all', async () => {
    const head = await latest()
    const timestamp = BigInt(head.timestamp) + 100n
    const raw = await transfer(0)
    const payload = await t.rpc<Payload>('testing_buildBlockV1', [head.hash, attributes(timestamp), [raw], null])
    // Nothing was kept: the head, the pool and the state are as they were.
    expect((await latest()).hash).toBe(head.hash)
    expect(await t.rpc('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' })
    expect(await t.rpc('eth_getBalance', [recipient, 'pending'])).toBe('0x0')

    // The same block, sealed: its timestamp, fee recipient and prevRandao as the attributes give them.
    await t.rpc('evm_setNextBlockTimestamp', [toHex(timestamp)])
    await t.rpc('anvil_setCoinbase', [feeRecipient])
    await t.rpc('hardhat_setPrevRandao', [prevRandao])
    await t.rpc('eth_sendRawTransaction', [raw])
    await t.mine()
    const sealed = await t.rpc<BlockJSON & { baseFeePerGas: Hex; stateRoot: Hex; transactions: Hex[] }>('eth_getBlockByNumber', ['latest', false])
    const receipt = await t.rpc<{ effectiveGasPrice: Hex }>('eth_getTransactionReceipt', [sealed.transactions[0]])
    expect(payload).toEqual({
      executionPayload: {
        parentHash: head.hash,
        feeRecipient,
        stateRoot: sealed.stateRoot,
        receiptsRoot: sealed.receiptsRoot,
        logsBloom: sealed.logsBloom,
        prevRandao,
        blockNumber: sealed.number,
        gasLimit: sealed.gasLimit,
        gasUsed: '0x5208',
        timestamp: toHex(timestamp),
        extraData: '0x',
        baseFeePerGas: sealed.baseFeePerGas,
        blockHash: sealed.hash,
        transactions: [raw],
        withdrawals: [],
        blobGasUsed: '0x0',
        excessBlobGas: sealed.excessBlobGas,
      },
      // The tip of 21000 gas at 1 gwei: the base fee is far under the fee cap.
      blockValue: toHex(21_000n * (BigInt(receipt.effectiveGasPrice) - BigInt(sealed.baseFeePerGas))),
      blobsBundle: { commitments: [], proofs: [], blobs: [] },
      executionRequests: [],
      shouldOverrideBuilder: false,
    })
    expect(BigInt(payload.blockValue)).toBe(21_000n * 10n ** 9n)
  })

  it('[] builds an empty block, null takes the pool, extraData and withdrawals are the given ones', async () => {
    const head = await latest()
    const raw = await transfer(1)
    const hash = await t.rpc<Hex>('eth_sendRawTransaction', [raw])
    const withdrawal = { index: '0x0', validatorIndex: '0x7', address: recipient, amount: '0x3b9aca00' }
    const empty = await t.rpc<Payload>('testing_buildBlockV1', [
      head.hash,
      attributes(BigInt(head.timestamp) + 1n, [withdrawal]),
      [],
      '0x746573745f6e616d65',
    ])
    expect(empty.executionPayload.transactions).toEqual([])
    expect(empty.executionPayload.gasUsed).toBe('0x0')
    expect(empty.executionPayload.extraData).toBe('0x746573745f6e616d65')
    expect(empty.executionPayload.withdrawals).toEqual([withdrawal])
    expect(empty.blockValue).toBe('0x0')
    const fromPool = await t.rpc<Payload>('testing_buildBlockV1', [head.hash, attributes(BigInt(head.timestamp) + 1n), null])
    expect(fromPool.executionPayload.transactions).toEqual([raw])
    // The withdrawal changes the state root (1 gwei credited to the recipient), the empty list does not.
    expect(empty.executionPayload.stateRoot).not.toBe(
      (await t.rpc<Payload>('testing_buildBlockV1', [head.hash, attributes(BigInt(head.timestamp) + 1n), []])).executionPayload.stateRoot,
    )
    // The pool still holds the transaction, and it seals as sent.
    expect(await t.rpc('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' })
    await t.mine()
    expect((await t.rpc<{ status: Hex }>('eth_getTransactionReceipt', [hash])).status).toBe('0x1')
  })

  it("moves the gas limit towards the chain's by less than 1/1024 of the parent's, as a payload must", async () => {
    await t.rpc('evm_setBlockGasLimit', [toHex(20_000_000n)])
    const head = await latest()
    const parent = BigInt(head.gasLimit)
    const payload = await t.rpc<Payload>('testing_buildBlockV1', [head.hash, attributes(BigInt(head.timestamp) + 1n), []])
    expect(BigInt(payload.executionPayload.gasLimit)).toBe(parent - (parent / 1024n - 1n))
    await t.rpc('evm_setBlockGasLimit', [head.gasLimit])
  })

  it("error: a transaction that cannot run, in geth's words, and nothing changes", async () => {
    const head = await latest()
    const raw = await transfer(999)
    const sender = getAddress(t.accounts[1]!.address)
    const nonce = await t.rpc<Hex>('eth_getTransactionCount', [sender, 'latest'])
    expect(await t.rpcError('testing_buildBlockV1', [head.hash, attributes(BigInt(head.timestamp) + 1n), [raw]])).toEqual({
      code: -32000,
      message: `nonce too high: address ${sender}, tx: 999 state: ${BigInt(nonce)}`,
    })
    expect((await latest()).hash).toBe(head.hash)
  })

  it('error: a parent that is not the head, a timestamp not after it, malformed input', async () => {
    const head = await latest()
    const parent = await t.rpc<BlockJSON>('eth_getBlockByNumber', [toHex(BigInt(head.number) - 1n), false])
    expect(await t.rpcError('testing_buildBlockV1', [parent.hash, attributes(BigInt(head.timestamp) + 1n), []])).toEqual({
      code: -32000,
      message: 'parentHash is not current head',
    })
    expect(await t.rpcError('testing_buildBlockV1', [head.hash, attributes(BigInt(head.timestamp)), []])).toEqual({
      code: -32602,
      message: `invalid timestamp: ${BigInt(head.timestamp)} is not after the parent's, ${BigInt(head.timestamp)}`,
    })
    expect(await t.rpcError('testing_buildBlockV1', [head.hash, attributes(BigInt(head.timestamp) + 1n), ['0x1234']])).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^invalid transaction 0: /),
    })
    expect((await t.rpcError('testing_buildBlockV1', [head.hash, attributes(BigInt(head.timestamp) + 1n), [], `0x${'00'.repeat(33)}`])).code).toBe(
      -32602,
    )
    expect((await t.rpcError('testing_buildBlockV1', [head.hash, { timestamp: '0x1' }, []])).code).toBe(-32602)
  })

  it("error: it is the owner's, as the methods that make blocks are: a web page gets 4100", async () => {
    const head = await latest()
    const response = await fetch(t.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://dapp.example' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'testing_buildBlockV1',
        params: [head.hash, attributes(BigInt(head.timestamp) + 1n), []],
      }),
    })
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(4100)
  })
})
