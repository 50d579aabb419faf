/**
 * Foundry 1.7.1 (forge, cast) against the real node, on flashchain's default block clock and on auto mining: the
 * commands a Foundry user runs against anvil, each answer asserted exactly.
 */
import { getContractAddress, keccak256, padHex, toHex } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'

import packageJson from '../../package.json' with { type: 'json' }
import { devAccounts, runOk, runTool, useNode } from './tools.ts'

import type { Address, Hex } from 'viem'
import type { MiningMode } from './tools.ts'

type Receipt = { status: Hex; transactionHash: Hex; blockHash: Hex | null; blockNumber: Hex; gasUsed: Hex; from: Address; to: Address | null }

const incremented = keccak256(toHex('Incremented(address,uint256)'))
const hash32 = /^0x[0-9a-f]{64}$/

beforeAll(async () => {
  const output = await runOk('forge', ['build'])
  expect(output).toMatch(/Compiler run successful|No files changed, compilation skipped/)
}, 120_000)

// A tool run takes seconds, and several wait for blocks of a 2 s clock: room for a busy machine.
const toolTimeout = 120_000

describe.each<MiningMode>(['interval', 'auto'])('foundry, --mining %s', (mining) => {
  const node = useNode(mining)
  const rpc = () => ['--rpc-url', node().url]

  async function createCounter(account: (typeof devAccounts)[number], initial: number): Promise<{ address: Address; hash: Hex }> {
    const output = await runOk('forge', [
      'create',
      'src/Counter.sol:Counter',
      ...rpc(),
      '--private-key',
      account.privateKey,
      '--broadcast',
      '--json',
      '--constructor-args',
      String(initial),
    ])
    const created = JSON.parse(output.slice(output.indexOf('{'))) as { deployer: Address; deployedTo: Address; transactionHash: Hex }
    return { address: created.deployedTo, hash: created.transactionHash }
  }

  // A receipt may be a pre-confirmation, which `pending` shows and `latest` shows once its block seals (docs/chain.md).
  const numberOf = async (counter: Address, block: 'pending' | 'latest' = 'pending') =>
    (await runOk('cast', ['call', counter, 'number()(uint256)', '--block', block, ...rpc()])).trim()
  /** Waits until the transaction's block is sealed (bounded: a few 2 s blocks at most). */
  async function sealed(transaction: Hex): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const receipt = JSON.parse(await runOk('cast', ['receipt', transaction, '--json', ...rpc()])) as Receipt
      if (BigInt((await runOk('cast', ['block-number', ...rpc()])).trim()) >= BigInt(receipt.blockNumber)) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`the block of ${transaction} was not sealed`)
  }
  const nonceOf = async (address: Address) => Number((await runOk('cast', ['nonce', address, ...rpc()])).trim())

  it(
    'forge create, then three cast send in a row, cast receipt and cast run',
    async () => {
      const account = devAccounts[0]!
      const counter = await createCounter(account, 7)
      expect(counter.address).toBe(getContractAddress({ from: account.address, nonce: 0n }))

      const receipts: Receipt[] = []
      for (let i = 0; i < 3; i++) {
        receipts.push(
          JSON.parse(
            await runOk('cast', ['send', counter.address, 'increment()', ...rpc(), '--private-key', account.privateKey, '--json']),
          ) as Receipt,
        )
      }
      expect(receipts.map((receipt) => receipt.status)).toEqual(['0x1', '0x1', '0x1'])
      expect(await numberOf(counter.address)).toBe('10')
      // cast nonce reads latest, which counts pre-confirmed transactions: the next cast send gets a fresh nonce.
      expect(await nonceOf(account.address)).toBe(4)
      // Once the block of the last send is sealed, latest shows it too.
      await sealed(receipts[2]!.transactionHash)
      expect(await numberOf(counter.address, 'latest')).toBe('10')

      const last = receipts[2]!
      const receipt = JSON.parse(await runOk('cast', ['receipt', last.transactionHash, '--json', ...rpc()])) as Receipt & {
        logs: { address: Address; topics: Hex[]; data: Hex }[]
      }
      expect(receipt).toMatchObject({ status: '0x1', from: account.address.toLowerCase(), to: counter.address.toLowerCase() })
      expect(receipt.blockHash).toMatch(hash32)
      expect(receipt.logs).toEqual([
        expect.objectContaining({
          address: counter.address.toLowerCase(),
          topics: [incremented, padHex(account.address.toLowerCase() as Hex, { size: 32 })],
          data: padHex('0xa', { size: 32 }),
        }),
      ])

      // cast run replays the block up to the transaction and decodes the trace with the project's artifacts.
      const replay = await runOk('cast', ['run', last.transactionHash, ...rpc()])
      expect(replay).toContain(`${counter.address}::increment()`)
      expect(replay).toContain(`emit Incremented(by: ${account.address}, number: 10)`)
      expect(replay).toContain(`Gas used: ${BigInt(receipt.gasUsed)}`)
      expect(replay).toContain('Transaction successfully executed.')
    },
    toolTimeout,
  )

  it.each([
    { slow: false, account: devAccounts[1]! },
    { slow: true, account: devAccounts[2]! },
  ])(
    'forge script --broadcast (slow: $slow) sends its three transactions',
    async ({ slow, account }) => {
      await runOk('forge', ['script', 'script/Deploy.s.sol:Deploy', ...rpc(), '--broadcast', ...(slow ? ['--slow'] : [])], {
        env: { PRIVATE_KEY: account.privateKey },
      })
      expect(await nonceOf(account.address)).toBe(3)
      expect(await numberOf(getContractAddress({ from: account.address, nonce: 0n }))).toBe('7')
    },
    toolTimeout,
  )

  it(
    'cast block pending',
    async () => {
      // Read until the head holds still across the request, so the pending block's number is known exactly.
      for (let attempt = 0; attempt < 10; attempt++) {
        const before = Number((await runOk('cast', ['block-number', ...rpc()])).trim())
        const result = await runTool('cast', ['block', 'pending', '--json', ...rpc()])
        const after = Number((await runOk('cast', ['block-number', ...rpc()])).trim())
        if (before !== after) continue
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
        const block = JSON.parse(result.stdout) as Record<string, unknown>
        expect(block.number).toBe(toHex(before + 1))
        for (const root of ['stateRoot', 'transactionsRoot', 'receiptsRoot', 'parentHash']) expect(block[root]).toMatch(hash32)
        expect(block.logsBloom).toMatch(/^0x[0-9a-f]{512}$/)
        return
      }
      throw new Error('the head moved during each of 10 reads')
    },
    toolTimeout,
  )

  it(
    'cast client names the node anvil-compatible',
    async () => {
      const expected = node().name === 'anvil' ? 'anvil/v1.7.1' : `anvil/flashchain/v${packageJson.version}/node${process.versions.node}`
      expect((await runOk('cast', ['client', ...rpc()])).trim()).toBe(expected)
    },
    toolTimeout,
  )

  it(
    'cast rpc anvil_setBalance, then cast balance',
    async () => {
      const address = '0x000000000000000000000000000000000000c0De'
      expect((await runOk('cast', ['rpc', 'anvil_setBalance', address, '0x2a', ...rpc()])).trim()).toBe('null')
      expect((await runOk('cast', ['balance', address, ...rpc()])).trim()).toBe('42')
    },
    toolTimeout,
  )

  it(
    'forge test --fork-url reads the node and writes only the fork',
    async () => {
      const account = devAccounts[3]!
      const counter = await createCounter(account, 21)
      const holder = '0x0000000000000000000000000000000000000F0f'
      await runOk('cast', ['rpc', 'anvil_setBalance', holder, '0x3039', ...rpc()])
      // forge forks at the sealed head; on the block clock the deployment may be pre-confirmed only.
      await sealed(counter.hash)

      const output = await runOk('forge', ['test', '--fork-url', node().url, '--no-storage-caching', '--match-path', 'test/Fork.t.sol'], {
        env: { COUNTER: counter.address, EXPECTED_NUMBER: '21', ACCOUNT: holder, EXPECTED_BALANCE: '12345' },
      })
      expect(output).toMatch(/\[PASS\] test_readsAndWritesTheForkedCounter\(\)/)
      expect(output).toContain('1 tests passed, 0 failed, 0 skipped (1 total tests)')
      expect(await numberOf(counter.address)).toBe('21')
    },
    toolTimeout,
  )
})
