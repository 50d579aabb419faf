// A restart loads each key's newest write only: the blocks before it are read from the store when a request names one,
// by the main thread and by an execution worker alike. Every old block answers after a restart what it answered
// before: balances, storage, code, calls (which a worker runs) and proofs; and a reset still goes back to genesis.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, test } from 'vitest'

import { createFlashchain } from '../../src/index.ts'

import type { Hex } from 'viem'

const DEV = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const RECIPIENT = '0x00000000000000000000000000000000000b0b00'
/** Runtime: with calldata, stores its first word in slot 0; without, returns slot 0. */
const RUNTIME = '3615600c57600035600055005b60005460005260206000f3'
/** Init code that returns RUNTIME (24 bytes, from offset 11). */
const INIT = `0x601880600b6000396000f3${RUNTIME}`
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

type Chain = Awaited<ReturnType<typeof createFlashchain>>

describe('blocks before a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flashchain-older-state-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  test('answer after it as before it, on the main thread and on a worker; a reset still reaches genesis', async () => {
    const first = await createFlashchain({ port: 0, dataDir, mining: 'auto', workers: 1 })
    const send = (params: Record<string, unknown>) => first.request({ method: 'eth_sendTransaction', params: [{ from: DEV, ...params }] })
    await send({ data: INIT })
    const receipt = (await first.request({ method: 'eth_getTransactionReceipt', params: [await send({ to: RECIPIENT, value: '0x1' })] })) as {
      blockNumber: Hex
    }
    const deployed = (await first.request({ method: 'eth_getBlockByNumber', params: ['0x1', true] })) as { transactions: { hash: Hex }[] }
    const { contractAddress } = (await first.request({ method: 'eth_getTransactionReceipt', params: [deployed.transactions[0]!.hash] })) as {
      contractAddress: Hex
    }
    for (let n = 1; n <= 4; n++) {
      await send({ to: contractAddress, data: word(n * 11) })
      await send({ to: RECIPIENT, value: `0x${(n * 1000).toString(16)}` })
    }
    const head = Number(await first.request({ method: 'eth_blockNumber' }))
    expect(head).toBe(10)
    expect(receipt.blockNumber).toBe('0x2')

    const reads = async (chain: Chain) => {
      const answers: unknown[] = []
      for (let number = 0; number <= head; number++) {
        const at = `0x${number.toString(16)}`
        answers.push(
          number,
          await chain.request({ method: 'eth_getBalance', params: [RECIPIENT, at] }),
          await chain.request({ method: 'eth_getTransactionCount', params: [DEV, at] }),
          await chain.request({ method: 'eth_getStorageAt', params: [contractAddress, word(0), at] }),
          await chain.request({ method: 'eth_getCode', params: [contractAddress, at] }),
          await chain.request({ method: 'eth_call', params: [{ to: contractAddress }, at] }).catch((error: Error) => error.message),
          // An access list runs on the worker, which asks the main thread for each key of a block before the horizon.
          await chain
            .request({ method: 'eth_createAccessList', params: [{ from: DEV, to: contractAddress }, at] })
            .catch((error: Error) => error.message),
          await chain.request({ method: 'eth_getProof', params: [contractAddress, [word(0)], at] }),
        )
      }
      return answers
    }
    // A simulation on a block before the restart builds that block's state trie, from a worker.
    const simulate = (chain: Chain) =>
      chain.request({
        method: 'eth_simulateV1',
        params: [{ blockStateCalls: [{ calls: [{ from: DEV, to: contractAddress, data: word(7) }] }], validation: false }, '0x5'],
      })
    const simulated = await simulate(first)
    const before = await reads(first)
    // The contract's slot took each value in turn, and the calls read it.
    expect(before.filter((_, i) => i % 8 === 3).slice(3)).toEqual([11, 11, 22, 22, 33, 33, 44, 44].map(word))
    expect(before.filter((_, i) => i % 8 === 5).slice(3)).toEqual([11, 11, 22, 22, 33, 33, 44, 44].map(word))
    // The access list of a read of slot 0 names it at every block where the contract is.
    expect(before.filter((_, i) => i % 8 === 6).slice(2)).toEqual(
      Array(9).fill({ accessList: [{ address: contractAddress, storageKeys: [word(0)] }], gasUsed: expect.any(String) }),
    )
    await first.close()

    const second = await createFlashchain({ port: 0, dataDir, mining: 'auto', workers: 1 })
    try {
      expect(await reads(second)).toEqual(before)
      expect(await simulate(second)).toEqual(simulated)
      // Further blocks go on from the head, and the blocks before the restart still read as they did.
      await second.request({ method: 'eth_sendTransaction', params: [{ from: DEV, to: contractAddress, data: word(99) }] })
      expect(await second.request({ method: 'eth_call', params: [{ to: contractAddress }, 'latest'] })).toBe(word(99))
      expect(await second.request({ method: 'eth_call', params: [{ to: contractAddress }, '0x4'] })).toBe(word(11))

      await second.request({ method: 'anvil_reset', params: [] })
      expect(await second.request({ method: 'eth_blockNumber' })).toBe('0x0')
      expect(await second.request({ method: 'eth_getCode', params: [contractAddress, 'latest'] })).toBe('0x')
      expect(await second.request({ method: 'eth_getBalance', params: [RECIPIENT, 'latest'] })).toBe('0x0')
    } finally {
      await second.close()
    }
  })
})
