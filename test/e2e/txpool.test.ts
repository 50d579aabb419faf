import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { getAddress, parseGwei } from 'viem'

import { startChain } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

let t: TestChain
const recipient = '0x00000000000000000000000000000000000b0b0b'
const fees = { maxFeePerGas: parseGwei('3'), maxPriorityFeePerGas: parseGwei('1') }
/** PUSH0, PUSH0, RETURN: deploys empty code. */
const initCode = '0x5f5ff3'

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

/** Sends from dev account `index` with an explicit nonce (gaps allowed). */
function send(index: number, nonce: number, request: { to?: Hex; value?: bigint; data?: Hex } = { to: recipient, value: 1n }): Promise<Hex> {
  return t.wallet(index).sendTransaction({ ...request, nonce, gas: 100_000n, ...fees })
}

describe('txpool_*', () => {
  it('divides the pool as geth does: pending up to the first nonce gap, queued behind it', async () => {
    const [alice, bob] = [t.accounts[1]!.address, t.accounts[2]!.address]
    const first = await send(1, 0)
    const second = await send(1, 1)
    const gapped = await send(1, 3)
    const creation = await send(2, 0, { data: initCode })

    expect(await t.testClient.getTxpoolStatus()).toEqual({ pending: 3, queued: 1 })

    const content = await t.testClient.getTxpoolContent()
    expect(Object.keys(content.pending)).toEqual([alice, bob].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())))
    expect(Object.keys(content.pending[alice]!)).toEqual(['0', '1'])
    expect(content.pending[alice]!['0']).toMatchObject({ hash: first, nonce: '0x0', blockHash: null, blockNumber: null, transactionIndex: null })
    expect(content.pending[alice]!['1']).toMatchObject({ hash: second, from: alice.toLowerCase(), to: recipient, value: '0x1' })
    expect(content.pending[bob]!['0']).toMatchObject({ hash: creation, to: null, input: initCode })
    expect(content.queued).toEqual({ [alice]: { '3': expect.objectContaining({ hash: gapped, nonce: '0x3' }) } })
    // geth's fields (NewRPCPendingTransaction), exactly: eth_getTransactionByHash's, and a null blockTimestamp.
    const raw = await t.rpc<{ pending: Record<string, Record<string, Record<string, unknown>>> }>('txpool_content')
    const byHash = await t.rpc<Record<string, unknown>>('eth_getTransactionByHash', [first])
    expect(raw.pending[alice]!['0']).toEqual({ ...byHash, blockTimestamp: null })
    expect(Object.keys(raw.pending[alice]!['0']!).sort()).toEqual(
      [
        'accessList',
        'blockHash',
        'blockNumber',
        'blockTimestamp',
        'chainId',
        'from',
        'gas',
        'gasPrice',
        'hash',
        'input',
        'maxFeePerGas',
        'maxPriorityFeePerGas',
        'nonce',
        'r',
        's',
        'to',
        'transactionIndex',
        'type',
        'v',
        'value',
        'yParity',
      ].sort(),
    )
    expect(raw.pending[alice]!['0']).toMatchObject({ blockTimestamp: null, gasPrice: '0xb2d05e00', maxFeePerGas: '0xb2d05e00', type: '0x2' })
    expect((await t.rpc<{ pending: Record<string, unknown> }>('txpool_contentFrom', [alice])).pending['0']).toEqual(raw.pending[alice]!['0'])

    const inspect = await t.testClient.inspectTxpool()
    expect(inspect.pending[alice]).toEqual({
      '0': `${getAddress(recipient)}: 1 wei + 100000 gas × 3000000000 wei`,
      '1': `${getAddress(recipient)}: 1 wei + 100000 gas × 3000000000 wei`,
    })
    expect(inspect.pending[bob]).toEqual({ '0': 'contract creation: 0 wei + 100000 gas × 3000000000 wei' })
    expect(inspect.queued).toEqual({ [alice]: { '3': `${getAddress(recipient)}: 1 wei + 100000 gas × 3000000000 wei` } })

    const from = await t.rpc<{ pending: Record<string, { hash: Hex }>; queued: Record<string, { hash: Hex }> }>('txpool_contentFrom', [
      alice.toLowerCase(),
    ])
    expect([Object.keys(from.pending), from.pending['1']!.hash, Object.keys(from.queued)]).toEqual([['0', '1'], second, ['3']])
    expect(await t.rpc('txpool_contentFrom', [recipient])).toEqual({ pending: {}, queued: {} })

    // Pre-confirmed transactions leave the pool; the gapped one stays queued until its gap is filled.
    await t.preconfirm()
    expect(await t.testClient.getTxpoolStatus()).toEqual({ pending: 0, queued: 1 })
    const filler = await send(1, 2)
    expect(await t.testClient.getTxpoolStatus()).toEqual({ pending: 2, queued: 0 })
    expect(Object.keys((await t.testClient.getTxpoolContent()).pending[alice]!)).toEqual(['2', '3'])
    await t.mine()
    expect(await t.testClient.getTxpoolStatus()).toEqual({ pending: 0, queued: 0 })
    expect(await t.testClient.getTxpoolContent()).toEqual({ pending: {}, queued: {} })
    expect((await t.publicClient.getTransactionReceipt({ hash: filler })).status).toBe('success')
  })

  it("anvil_dropTransaction and hardhat_dropTransaction take one out; the sender's later nonces wait behind the gap", async () => {
    const carol = t.accounts[3]!.address
    const nonce = await t.publicClient.getTransactionCount({ address: carol })
    const [first, second, third] = [await send(3, nonce), await send(3, nonce + 1), await send(3, nonce + 2)]
    expect(await t.testClient.getTxpoolStatus()).toEqual({ pending: 3, queued: 0 })

    await t.testClient.dropTransaction({ hash: second })
    expect(await t.rpc('eth_getTransactionByHash', [second])).toBeNull()
    expect(await t.testClient.getTxpoolStatus()).toEqual({ pending: 1, queued: 1 })
    expect(await t.rpc('anvil_dropTransaction', [second])).toBeNull()
    expect(await t.rpc('hardhat_dropTransaction', [third.toUpperCase().replace('0X', '0x')])).toBe(true)
    expect(await t.rpc('hardhat_dropTransaction', [third])).toBe(false)

    // Only pool transactions go: once pre-confirmed, the first is in the pending block and stays.
    await t.preconfirm()
    expect(await t.rpc('anvil_dropTransaction', [first])).toBeNull()
    await t.mine()
    expect((await t.publicClient.getTransactionReceipt({ hash: first })).status).toBe('success')
    expect(await t.publicClient.getTransactionCount({ address: carol })).toBe(nonce + 1)
  })

  it('anvil_dropAllTransactions empties the pool, and a restart does not bring them back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-txpool-'))
    try {
      const first = await startChain({ dataDir })
      const sender = first.accounts[4]!.address
      try {
        for (const nonce of [0, 1, 5]) await first.wallet(4).sendTransaction({ to: recipient, value: 1n, nonce, gas: 100_000n, ...fees })
        expect(await first.testClient.getTxpoolStatus()).toEqual({ pending: 2, queued: 1 })
        expect(await first.rpc('anvil_dropAllTransactions')).toBeNull()
        expect(await first.testClient.getTxpoolContent()).toEqual({ pending: {}, queued: {} })
      } finally {
        await first.close()
      }
      const second = await startChain({ dataDir })
      try {
        expect(await second.testClient.getTxpoolStatus()).toEqual({ pending: 0, queued: 0 })
        await second.mine()
        expect(await second.publicClient.getTransactionCount({ address: sender })).toBe(0)
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('error: txpool_contentFrom without an address is -32602', async () => {
    expect(await t.rpcError('txpool_contentFrom', ['0x1234'])).toMatchObject({ code: -32602 })
    expect(await t.rpcError('txpool_contentFrom', [])).toMatchObject({ code: -32602 })
  })

  it('error: txpool_status takes no parameters', async () => {
    expect(await t.rpcError('txpool_status', [1])).toMatchObject({ code: -32602 })
  })
})
