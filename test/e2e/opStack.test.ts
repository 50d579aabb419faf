/**
 * An OP Stack chain (--op-stack) as a Base user meets it: the predeploys and Base's L1 values at genesis, the L1
 * attributes deposit opening every block, the L1 data fee and the operator fee paid to their vaults with every wei
 * accounted for, deposits sent by the node's owner (raw or as viem builds them), the owner's L1 values, and the
 * chain's usual machinery (persistence, snapshots, tracing, subscriptions) with deposits in its blocks. Driven by
 * viem's OP Stack actions and formatters, by ethers v6, and by raw JSON-RPC.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { JsonRpcProvider } from 'ethers'
import {
  bytesToHex,
  createPublicClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  hexToBigInt,
  hexToBytes,
  http,
  keccak256,
  parseAbi,
  parseEther,
  parseGwei,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { chainConfig, publicActionsL2, serializeTransaction } from 'viem/op-stack'

import { flzCompressLen } from '../../src/chain/opstack/l1Cost.ts'
import { Reverter, Store } from './fixtures/contracts.ts'
import { VALUE_SET, ZERO_WORD, startChain, toHex, word } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'
import { readFlashblocks } from './flashblocksReader.ts'

import type { Hex, PrivateKeyAccount } from 'viem'
import type { TestChain } from './helpers.ts'

const L1_BLOCK = '0x4200000000000000000000000000000000000015'
const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000f'
const SEQUENCER_FEE_VAULT = '0x4200000000000000000000000000000000000011'
const BASE_FEE_VAULT = '0x4200000000000000000000000000000000000019'
const L1_FEE_VAULT = '0x420000000000000000000000000000000000001a'
const OPERATOR_FEE_VAULT = '0x420000000000000000000000000000000000001b'
const DEPOSITOR = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001'
const WETH = '0x4200000000000000000000000000000000000006'
const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11'
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const CREATE2_DEPLOYER = '0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2'

/** Base's L1 values, which L1Block holds at genesis. */
const BASE_L1 = {
  l1BaseFee: 1_600_297_986n,
  l1BlobBaseFee: 1n,
  baseFeeScalar: 2269n,
  blobBaseFeeScalar: 1_055_762n,
  operatorFeeScalar: 0n,
  operatorFeeConstant: 0n,
  daFootprintGasScalar: 400n,
}
type L1Values = typeof BASE_L1

/** What the real GasPriceOracle answers to viem's estimateL1Fee of a plain transfer with Base's values. */
const TRANSFER_L1_FEE = 5_809_721_913n

const gasPriceOracle = parseAbi([
  'function version() view returns (string)',
  'function isJovian() view returns (bool)',
  'function l1BaseFee() view returns (uint256)',
  'function blobBaseFee() view returns (uint256)',
  'function baseFeeScalar() view returns (uint32)',
  'function blobBaseFeeScalar() view returns (uint32)',
  'function getL1Fee(bytes) view returns (uint256)',
])
const l1Block = parseAbi([
  'function version() view returns (string)',
  'function number() view returns (uint64)',
  'function timestamp() view returns (uint64)',
  'function operatorFeeScalar() view returns (uint32)',
  'function operatorFeeConstant() view returns (uint64)',
  'function daFootprintGasScalar() view returns (uint16)',
])

/**
 * The Fjord L1 data fee (OP Stack specs, fjord/exec-engine.md) of a transaction whose FastLZ-compressed size is
 * `fastLzSize`: a linear fit to the size a batch compresses it to, at least 100 bytes, priced by the L1 values.
 */
function fjordL1Fee(fastLzSize: number, l1: L1Values): { fee: bigint; gasUsed: bigint } {
  const fitted = -42_585_600n + 836_500n * BigInt(fastLzSize)
  const size = fitted < 100_000_000n ? 100_000_000n : fitted
  const scaled = l1.baseFeeScalar * l1.l1BaseFee * 16n + l1.blobBaseFeeScalar * l1.l1BlobBaseFee
  return { fee: (size * scaled) / 10n ** 12n, gasUsed: (size * 16n) / 10n ** 6n }
}

/** The chain as viem's OP Stack support sees it: its predeploys, formatters and serializers. */
function opStackClient(url: string) {
  const chain = defineChain({
    ...chainConfig,
    id: 31337,
    name: 'flashchain OP Stack',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  return createPublicClient({ chain, transport: http(url, { retryCount: 0 }) }).extend(publicActionsL2())
}

type Json = Record<string, unknown>
type TxJson = Json & { hash: Hex; from: Hex; to: Hex | null; input: Hex; type: Hex; gas: Hex }
type BlockJson = Json & { number: Hex; receiptsRoot: Hex; miner: Hex; baseFeePerGas: Hex; gasUsed: Hex; timestamp: Hex; transactions: TxJson[] }
type ReceiptJson = Json & {
  status: Hex
  gasUsed: Hex
  cumulativeGasUsed: Hex
  effectiveGasPrice: Hex
  blockNumber: Hex
  transactionIndex: Hex
  l1Fee?: Hex
}

const block = (t: TestChain, number: bigint) => t.rpc<BlockJson>('eth_getBlockByNumber', [toHex(number), true])
const receipt = (t: TestChain, hash: Hex) => t.rpc<ReceiptJson>('eth_getTransactionReceipt', [hash])
const balance = async (t: TestChain, address: Hex, number: bigint | 'latest' = 'latest') =>
  BigInt(await t.rpc<Hex>('eth_getBalance', [address, typeof number === 'bigint' ? toHex(number) : number]))
const nonce = async (t: TestChain, address: Hex) => BigInt(await t.rpc<Hex>('eth_getTransactionCount', [address, 'latest']))

/** A fresh account, with no balance and no nonce, whose key the test holds. */
const freshAccount = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey())

/** A deposit request for flashchain_sendDeposit from its fields. */
function depositRequest(fields: { from: Hex; to?: Hex; mint?: bigint; value?: bigint; gas: bigint; data?: Hex; isCreation?: boolean }) {
  return {
    ...fields,
    mint: fields.mint === undefined ? undefined : toHex(fields.mint),
    value: fields.value === undefined ? undefined : toHex(fields.value),
    gas: toHex(fields.gas),
  }
}

/** Signs an EIP-1559 transaction from dev account `from` locally and sends its envelope; returns both. */
async function sendSigned(
  t: TestChain,
  from: number,
  request: { to?: Hex; value?: bigint; data?: Hex; gas: bigint },
): Promise<{ hash: Hex; raw: Hex }> {
  const account = t.accounts[from]!
  const raw = await account.signTransaction({
    chainId: 31337,
    type: 'eip1559',
    nonce: await t.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    maxFeePerGas: parseGwei('10'),
    maxPriorityFeePerGas: parseGwei('1'),
    ...request,
  })
  return { hash: await t.rpc<Hex>('eth_sendRawTransaction', [raw]), raw }
}

/** The L1 values an L2 block's transactions were priced by, as L1Block holds them after its L1 attributes deposit. */
async function l1ValuesAt(t: TestChain, number: bigint): Promise<L1Values> {
  const client = opStackClient(t.url)
  const read = (abi: typeof gasPriceOracle | typeof l1Block, address: Hex, functionName: string) =>
    client.readContract({ abi, address, functionName, blockNumber: number } as never) as Promise<bigint | number>
  const [l1BaseFee, l1BlobBaseFee, baseFeeScalar, blobBaseFeeScalar, operatorFeeScalar, operatorFeeConstant, daFootprintGasScalar] =
    await Promise.all([
      read(gasPriceOracle, GAS_PRICE_ORACLE, 'l1BaseFee'),
      read(gasPriceOracle, GAS_PRICE_ORACLE, 'blobBaseFee'),
      read(gasPriceOracle, GAS_PRICE_ORACLE, 'baseFeeScalar'),
      read(gasPriceOracle, GAS_PRICE_ORACLE, 'blobBaseFeeScalar'),
      read(l1Block, L1_BLOCK, 'operatorFeeScalar'),
      read(l1Block, L1_BLOCK, 'operatorFeeConstant'),
      read(l1Block, L1_BLOCK, 'daFootprintGasScalar'),
    ])
  return {
    l1BaseFee: BigInt(l1BaseFee),
    l1BlobBaseFee: BigInt(l1BlobBaseFee),
    baseFeeScalar: BigInt(baseFeeScalar),
    blobBaseFeeScalar: BigInt(blobBaseFeeScalar),
    operatorFeeScalar: BigInt(operatorFeeScalar),
    operatorFeeConstant: BigInt(operatorFeeConstant),
    daFootprintGasScalar: BigInt(daFootprintGasScalar),
  }
}

/**
 * Checks that a sealed, non-deposit transaction, alone in its block beside the L1 attributes deposit, moved every wei
 * where the OP Stack says: the sender paid value, gas, L1 fee and operator fee; the recipient got the value, the
 * BaseFeeVault the base fee, the SequencerFeeVault (the coinbase) the tip, the L1FeeVault the L1 fee computed from
 * the signed envelope, the OperatorFeeVault the operator fee. Answers the receipt.
 */
async function expectFeesConserved(t: TestChain, sent: { hash: Hex; raw: Hex }, l1: L1Values): Promise<ReceiptJson> {
  const mined = await receipt(t, sent.hash)
  const number = BigInt(mined.blockNumber)
  const sealed = await block(t, number)
  expect(sealed.transactions.map((tx) => tx.hash)).toEqual([sealed.transactions[0]!.hash, sent.hash])
  expect(sealed.transactions[0]!.from).toBe(DEPOSITOR)
  expect(sealed.miner).toBe(SEQUENCER_FEE_VAULT)
  expect(sealed.gasUsed).toBe(mined.cumulativeGasUsed)
  const tx = sealed.transactions[1]!
  const to = (tx.to ?? (mined.contractAddress as Hex)) as Hex
  const accounts = [tx.from, to, BASE_FEE_VAULT, SEQUENCER_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT] as const
  const before = await Promise.all(accounts.map((address) => balance(t, address, number - 1n)))
  const after = await Promise.all(accounts.map((address) => balance(t, address, number)))
  const [sender, recipient, baseVault, sequencerVault, l1Vault, operatorVault] = after.map((value, i) => value - before[i]!) as bigint[]

  const gasUsed = BigInt(mined.gasUsed)
  const price = BigInt(mined.effectiveGasPrice)
  const baseFee = BigInt(sealed.baseFeePerGas)
  const value = BigInt(tx.value as Hex)
  const l1Fee = fjordL1Fee(flzCompressLen(hexToBytes(sent.raw)), l1)
  const operatorFee = gasUsed * l1.operatorFeeScalar * 100n + l1.operatorFeeConstant
  expect(BigInt(mined.l1Fee!)).toBe(l1Fee.fee)
  expect(BigInt(mined.l1GasUsed as Hex)).toBe(l1Fee.gasUsed)
  expect({ recipient, baseVault, sequencerVault, l1Vault, operatorVault, sender }).toEqual({
    recipient: value,
    baseVault: gasUsed * baseFee,
    sequencerVault: gasUsed * (price - baseFee),
    l1Vault: l1Fee.fee,
    operatorVault: operatorFee,
    sender: -(value + gasUsed * price + l1Fee.fee + operatorFee),
  })
  expect(recipient + baseVault + sequencerVault + l1Vault + operatorVault + sender).toBe(0n)
  return mined
}

/** Chain A: an OP Stack chain in memory, mining by hand. */
let t: TestChain

beforeAll(async () => {
  t = await startChain({ opStack: true })
})

afterAll(async () => {
  await t?.close()
})

describe('genesis', () => {
  it('holds the predeploys, the Jovian GasPriceOracle and L1Block, and Base’s L1 values', async () => {
    const client = opStackClient(t.url)
    const code = (address: Hex) => t.rpc<Hex>('eth_getCode', [address, 'latest'])
    const proxy = await code('0x4200000000000000000000000000000000000000')
    expect(proxy.length).toBeGreaterThan(2)
    for (const address of [
      '0x42000000000000000000000000000000000007ff',
      L1_BLOCK,
      GAS_PRICE_ORACLE,
      SEQUENCER_FEE_VAULT,
      OPERATOR_FEE_VAULT,
    ] as const) {
      expect(await code(address), address).toBe(proxy)
    }
    expect(await code('0x4200000000000000000000000000000000000042')).toBe('0x')
    for (const address of [MULTICALL3, PERMIT2, CREATE2_DEPLOYER] as const) expect((await code(address)).length, address).toBeGreaterThan(2)
    // WETH is WETH9 itself, not a proxy.
    expect(await client.readContract({ abi: parseAbi(['function symbol() view returns (string)']), address: WETH, functionName: 'symbol' })).toBe(
      'WETH',
    )
    expect(await client.readContract({ abi: gasPriceOracle, address: GAS_PRICE_ORACLE, functionName: 'version' })).toBe('1.6.0')
    expect(await client.readContract({ abi: gasPriceOracle, address: GAS_PRICE_ORACLE, functionName: 'isJovian' })).toBe(true)
    expect(await client.readContract({ abi: l1Block, address: L1_BLOCK, functionName: 'version' })).toBe('1.7.0')
    expect(await l1ValuesAt(t, await t.blockNumber())).toEqual(BASE_L1)
  })
})

describe('viem’s OP Stack actions (publicActionsL2)', () => {
  it('getL1BaseFee and estimateL1Fee read the GasPriceOracle: Base’s L1 base fee, and a transfer’s L1 fee', async () => {
    const client = opStackClient(t.url)
    expect(await client.getL1BaseFee()).toBe(BASE_L1.l1BaseFee)
    const transfer = { account: t.accounts[1]!.address, to: t.accounts[2]!.address, value: 1n }
    expect(await client.estimateL1Fee(transfer)).toBe(TRANSFER_L1_FEE)
    expect(await client.estimateOperatorFee(transfer)).toBe(0n)
  })

  it('estimateTotalFee is the L1 fee, the operator fee and the gas at the gas price, as viem adds them', async () => {
    const client = opStackClient(t.url)
    const transfer = { account: t.accounts[1]!.address, to: t.accounts[2]!.address, value: 1n }
    const [total, l1Fee, operatorFee, gas, gasPrice] = await Promise.all([
      client.estimateTotalFee(transfer),
      client.estimateL1Fee(transfer),
      client.estimateOperatorFee(transfer),
      client.estimateGas(transfer),
      client.getGasPrice(),
    ])
    expect(gas).toBe(21_000n)
    expect(total).toBe(l1Fee + operatorFee + gas * gasPrice)
    expect(total).toBe(TRANSFER_L1_FEE + 21_000n * gasPrice)
  })

  it('eth_estimateGas and eth_call leave the L1 fee out: an account holding only gas and value can estimate and call', async () => {
    const poor = freshAccount()
    const maxFeePerGas = parseGwei('2')
    await t.rpc('flashchain_sendDeposit', [
      depositRequest({ from: poor.address, to: poor.address, mint: 21_000n * maxFeePerGas + 1n, gas: 100_000n }),
    ])
    await t.mine()
    const call = { from: poor.address, to: t.accounts[2]!.address, value: '0x1', maxFeePerGas: toHex(maxFeePerGas), maxPriorityFeePerGas: '0x0' }
    expect(await t.rpc('eth_estimateGas', [call])).toBe(toHex(21_000n))
    expect(await t.rpc('eth_call', [{ ...call, gas: toHex(21_000n) }, 'latest'])).toBe('0x')
    // One wei more is refused: the balance check is there, and only the L1 fee is left out of it.
    const over = { ...call, value: '0x2' }
    expect(await t.rpcError('eth_estimateGas', [over])).toEqual({ code: -32000, message: 'gas required exceeds allowance (20999)' })
    const refused = await t.rpcError('eth_call', [{ ...over, gas: toHex(21_000n) }, 'latest'])
    expect(refused.code).toBe(-32000)
    expect(refused.message).toMatch(/funds/)
  })
})

describe('the L1 attributes deposit', () => {
  it('opens every block: type 0x7e from the depositor to L1Block, 1,000,000 gas, Jovian calldata; its receipt has no L1 fee', async () => {
    const number = await t.mine()
    const sealed = await block(t, number)
    expect(sealed.miner).toBe(SEQUENCER_FEE_VAULT)
    const [attributes] = sealed.transactions
    expect(attributes).toMatchObject({
      type: '0x7e',
      from: DEPOSITOR,
      to: L1_BLOCK,
      gas: toHex(1_000_000n),
      gasPrice: '0x0',
      transactionIndex: '0x0',
      mint: '0x0',
    })
    expect(attributes!.input.slice(0, 10)).toBe('0x3db6be2b')
    expect((attributes!.input.length - 2) / 2).toBe(178)
    const attributesReceipt = await receipt(t, attributes!.hash)
    expect(attributesReceipt).toMatchObject({
      status: '0x1',
      type: '0x7e',
      effectiveGasPrice: '0x0',
      depositReceiptVersion: '0x1',
      depositNonce: attributes!.nonce,
    })
    expect(
      Object.keys(attributesReceipt).filter((key) => key.startsWith('l1') || key.startsWith('operatorFee') || key === 'daFootprintGasScalar'),
    ).toEqual([])
    // The calldata carries the L1 values at their packed offsets (specs, L1 attributes, Jovian).
    const bytes = hexToBytes(attributes!.input)
    const uint = (offset: number, size: number) => hexToBigInt(`0x${Buffer.from(bytes.subarray(offset, offset + size)).toString('hex')}`)
    expect([uint(4, 4), uint(8, 4), uint(36, 32), uint(68, 32), uint(176, 2)]).toEqual([
      BASE_L1.baseFeeScalar,
      BASE_L1.blobBaseFeeScalar,
      BASE_L1.l1BaseFee,
      BASE_L1.l1BlobBaseFee,
      BASE_L1.daFootprintGasScalar,
    ])
  })

  it('moves the L1 origin one L1 block per 12 s of L2 time', async () => {
    const client = opStackClient(t.url)
    const origin = async (blockNumber: bigint) =>
      Promise.all([
        client.readContract({ abi: l1Block, address: L1_BLOCK, functionName: 'number', blockNumber }),
        client.readContract({ abi: l1Block, address: L1_BLOCK, functionName: 'timestamp', blockNumber }),
      ])
    const head = await t.mine()
    const [number, timestamp] = await origin(head)
    // A block's origin is at most 12 s older than it.
    const l2Time = BigInt((await block(t, head)).timestamp)
    expect(l2Time - timestamp >= 0n && l2Time - timestamp < 12n).toBe(true)
    // 36 s after the origin, the origin is 3 L1 blocks on; 11 s later it stays; 12 s later, the next L1 block is the origin.
    await t.rpc('evm_setNextBlockTimestamp', [toHex(timestamp + 36n)])
    expect(await origin(await t.mine())).toEqual([number + 3n, timestamp + 36n])
    await t.rpc('evm_setNextBlockTimestamp', [toHex(timestamp + 36n + 11n)])
    expect(await origin(await t.mine())).toEqual([number + 3n, timestamp + 36n])
    await t.rpc('evm_setNextBlockTimestamp', [toHex(timestamp + 36n + 12n)])
    expect(await origin(await t.mine())).toEqual([number + 4n, timestamp + 48n])
  })
})

describe('flashchain_sendDeposit', () => {
  it('buildDepositTransaction’s request, from a fresh account: minted on L2 at index 1, after the L1 attributes deposit', async () => {
    const client = opStackClient(t.url)
    const from = freshAccount().address
    const to = freshAccount().address
    const { request } = await client.buildDepositTransaction({ mint: parseEther('1'), to, value: parseEther('0.25'), gas: 50_000n })
    const hash = await t.rpc<Hex>('flashchain_sendDeposit', [
      {
        ...depositRequest({ from, to: request.to, mint: request.mint, value: request.value, gas: request.gas!, data: request.data }),
        isCreation: request.isCreation,
      },
    ])
    // Queued for the next block's start, not yet in one.
    expect(await t.rpc('eth_getTransactionReceipt', [hash])).toBeNull()
    const number = await t.mine()

    expect(await balance(t, from)).toBe(parseEther('0.75'))
    expect(await balance(t, to)).toBe(parseEther('0.25'))
    expect(await nonce(t, from)).toBe(1n)
    const sealed = await block(t, number)
    expect(sealed.transactions.map((tx) => [tx.from, tx.type])).toEqual([
      [DEPOSITOR, '0x7e'],
      [from.toLowerCase(), '0x7e'],
    ])
    expect(sealed.transactions[1]!.hash).toBe(hash)
    expect(await receipt(t, hash)).toMatchObject({
      status: '0x1',
      type: '0x7e',
      transactionIndex: '0x1',
      gasUsed: toHex(21_000n),
      effectiveGasPrice: '0x0',
      depositNonce: '0x0',
      depositReceiptVersion: '0x1',
    })
    expect((await receipt(t, hash)).l1Fee).toBeUndefined()
    expect(await t.rpc('eth_getTransactionByHash', [hash])).toMatchObject({
      hash,
      type: '0x7e',
      from: from.toLowerCase(),
      to: to.toLowerCase(),
      mint: toHex(parseEther('1')),
      value: toHex(parseEther('0.25')),
      gas: toHex(50_000n),
      gasPrice: '0x0',
      nonce: '0x0',
      v: '0x0',
      r: '0x0',
      s: '0x0',
      sourceHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
    const viewed = await client.getTransaction({ hash })
    expect(viewed).toMatchObject({ type: 'deposit', mint: parseEther('1'), value: parseEther('0.25'), transactionIndex: 1 })
  })

  it('a raw deposit envelope: its hash is the keccak of the envelope, the chain serves it back, and a second send is already known', async () => {
    const from = freshAccount().address
    const envelope = serializeTransaction({
      type: 'deposit',
      sourceHash: keccak256('0x0badc0de'),
      from,
      to: t.accounts[3]!.address,
      mint: parseEther('2'),
      value: 5n,
      gas: 60_000n,
      data: '0x1234',
    })
    // The owner in process, as an embedding program sends it.
    const hash = (await t.flashchain.request({ method: 'flashchain_sendDeposit', params: [envelope] } as never)) as Hex
    expect(hash).toBe(keccak256(envelope))
    expect(await t.rpcError('flashchain_sendDeposit', [envelope])).toEqual({ code: -32000, message: 'already known' })
    await t.mine()
    expect(await receipt(t, hash)).toMatchObject({ status: '0x1', transactionIndex: '0x1' })
    expect(await t.rpc('debug_getRawTransaction', [hash])).toBe(envelope)
    expect(await t.rpcError('flashchain_sendDeposit', [envelope])).toEqual({ code: -32000, message: 'already known' })
    expect(await balance(t, from)).toBe(parseEther('2') - 5n)
  })

  it('error: a page’s request (with an Origin) is not the owner’s, and queues nothing', async () => {
    const envelope = serializeTransaction({
      type: 'deposit',
      sourceHash: keccak256('0x0a0a'),
      from: freshAccount().address,
      mint: 1n,
      to: t.accounts[3]!.address,
      gas: 30_000n,
    })
    const response = await fetch(t.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://page.example' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'flashchain_sendDeposit', params: [envelope] }),
    })
    const body = (await response.json()) as { result?: unknown; error?: { code: number } }
    expect(body.result).toBeUndefined()
    expect(body.error?.code).toBe(4100)
    const number = await t.mine()
    expect((await block(t, number)).transactions.map((tx) => tx.hash)).not.toContain(keccak256(envelope))
  })

  it('eth_sendRawTransaction refuses a deposit envelope, as op-geth’s pool does', async () => {
    const envelope = serializeTransaction({
      type: 'deposit',
      sourceHash: keccak256('0x5e5e'),
      from: freshAccount().address,
      mint: 1n,
      to: t.accounts[3]!.address,
      gas: 30_000n,
    })
    expect(await t.rpcError('eth_sendRawTransaction', [envelope])).toMatchObject({ code: -32000, message: 'transaction type not supported' })
  })

  it('a deposit whose call reverts fails, and keeps its mint and its nonce', async () => {
    const { hash: deployed } = await sendSigned(t, 4, { data: Reverter.bytecode, gas: 500_000n })
    await t.mine()
    const reverter = (await receipt(t, deployed)).contractAddress as Hex
    const from = freshAccount().address
    const hash = await t.rpc<Hex>('flashchain_sendDeposit', [
      depositRequest({
        from,
        to: reverter,
        mint: parseEther('3'),
        value: 7n,
        gas: 100_000n,
        data: encodeFunctionData({ abi: Reverter.abi, functionName: 'nope' }),
      }),
    ])
    await t.mine()
    expect(await receipt(t, hash)).toMatchObject({ status: '0x0', transactionIndex: '0x1', depositNonce: '0x0', effectiveGasPrice: '0x0' })
    expect(await balance(t, from)).toBe(parseEther('3'))
    expect(await balance(t, reverter)).toBe(0n)
    expect(await nonce(t, from)).toBe(1n)
  })

  it('a deposit that cannot start (gas below its intrinsic cost, value above its balance) uses all its gas and keeps its mint', async () => {
    const starved = freshAccount().address
    const overdrawn = freshAccount().address
    const recipient = freshAccount().address
    const low = await t.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from: starved, to: recipient, mint: 7n, gas: 20_000n })])
    const over = await t.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from: overdrawn, to: recipient, mint: 5n, value: 6n, gas: 30_000n })])
    await t.mine()
    expect(await receipt(t, low)).toMatchObject({ status: '0x0', gasUsed: toHex(20_000n), transactionIndex: '0x1', depositNonce: '0x0' })
    expect(await receipt(t, over)).toMatchObject({ status: '0x0', gasUsed: toHex(30_000n), transactionIndex: '0x2', depositNonce: '0x0' })
    expect([await balance(t, starved), await balance(t, overdrawn), await balance(t, recipient)]).toEqual([7n, 5n, 0n])
    expect([await nonce(t, starved), await nonce(t, overdrawn)]).toEqual([1n, 1n])
  })

  it('error: a request that is no creation and names no `to`, or an envelope that is no deposit, is invalid params', async () => {
    expect(await t.rpcError('flashchain_sendDeposit', [{ from: freshAccount().address, gas: toHex(30_000n) }])).toEqual({
      code: -32602,
      message: 'invalid argument 0: a deposit that is no creation names its `to`',
    })
    expect((await t.rpcError('flashchain_sendDeposit', ['0x7e1234'])).code).toBe(-32602)
    const signed = await t.accounts[1]!.signTransaction({
      chainId: 31337,
      nonce: 0,
      to: t.accounts[2]!.address,
      gas: 21_000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    })
    expect(await t.rpcError('flashchain_sendDeposit', [signed])).toMatchObject({ code: -32602 })
  })

  it('a deposit that creates a contract: at the address of its sender and deposit nonce, with its code', async () => {
    const from = freshAccount().address
    // A first deposit moves the sender's nonce to 1.
    await t.rpc('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: parseEther('1'), gas: 30_000n })])
    await t.mine()
    const hash = await t.rpc<Hex>('flashchain_sendDeposit', [
      depositRequest({ from, isCreation: true, gas: 1_000_000n, data: encodeDeployData({ abi: Store.abi, bytecode: Store.bytecode, args: [7n] }) }),
    ])
    await t.mine()
    const created = getContractAddress({ from, nonce: 1n }).toLowerCase()
    expect(await receipt(t, hash)).toMatchObject({ status: '0x1', depositNonce: '0x1', contractAddress: created, to: null })
    expect(await t.rpc('eth_getTransactionByHash', [hash])).toMatchObject({ type: '0x7e', nonce: '0x1', to: null })
    expect(await t.rpc('eth_getCode', [created, 'latest'])).toBe(Store.deployedBytecode)
    expect(await t.rpc('eth_getStorageAt', [created, '0x0', 'latest'])).toBe(word(7n))
    expect(await nonce(t, from)).toBe(2n)
  })

  it('a deposit runs before the block’s transactions: a fresh account funded by one sends in the same block', async () => {
    const fresh = freshAccount()
    const deposit = await t.rpc<Hex>('flashchain_sendDeposit', [
      depositRequest({ from: fresh.address, to: fresh.address, mint: parseEther('1'), gas: 30_000n }),
    ])
    await t.preconfirm()
    const raw = await fresh.signTransaction({
      chainId: 31337,
      nonce: 1,
      to: t.accounts[5]!.address,
      value: 9n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const sent = await t.rpc<Hex>('eth_sendRawTransaction', [raw])
    const number = await t.mine()
    expect((await block(t, number)).transactions.map((tx) => tx.hash).slice(1)).toEqual([deposit, sent])
    expect(await receipt(t, sent)).toMatchObject({ status: '0x1', transactionIndex: '0x2' })
  })
})

describe('fees', () => {
  it('a signed EIP-1559 transfer: gas, L1 fee and operator fee go to their vaults, and the sender pays exactly that', async () => {
    const sent = await sendSigned(t, 6, { to: freshAccount().address, value: parseEther('0.5'), gas: 21_000n })
    const number = await t.mine()
    const mined = await expectFeesConserved(t, sent, await l1ValuesAt(t, number))
    // A transfer's envelope is below Fjord's minimum size: the value the real GasPriceOracle gives viem.
    expect(BigInt(mined.l1Fee!)).toBe(TRANSFER_L1_FEE)
    expect(mined).toMatchObject({
      l1GasPrice: toHex(BASE_L1.l1BaseFee),
      l1GasUsed: toHex(1600n),
      l1BaseFeeScalar: toHex(BASE_L1.baseFeeScalar),
      l1BlobBaseFee: toHex(BASE_L1.l1BlobBaseFee),
      l1BlobBaseFeeScalar: toHex(BASE_L1.blobBaseFeeScalar),
      daFootprintGasScalar: toHex(BASE_L1.daFootprintGasScalar),
    })
    expect('operatorFeeScalar' in mined || 'operatorFeeConstant' in mined).toBe(false)
  })

  it('a contract deployment and a call to it: the L1 fee follows the envelope’s compressed size', async () => {
    const deployment = await sendSigned(t, 7, { data: encodeDeployData({ abi: Store.abi, bytecode: Store.bytecode, args: [1n] }), gas: 500_000n })
    const deployedIn = await t.mine()
    const l1 = await l1ValuesAt(t, deployedIn)
    const deployed = await expectFeesConserved(t, deployment, l1)
    // Large enough to be priced by its size, not by Fjord's minimum.
    expect(BigInt(deployed.l1Fee!)).toBeGreaterThan(TRANSFER_L1_FEE)
    // The GasPriceOracle's own FastLZ, run on the same bytes, agrees with the length the fee was computed from.
    const client = opStackClient(t.url)
    const oracle = await client.readContract({ abi: gasPriceOracle, address: GAS_PRICE_ORACLE, functionName: 'getL1Fee', args: [deployment.raw] })
    expect(oracle).toBe(fjordL1Fee(flzCompressLen(hexToBytes(deployment.raw)) + 68, l1).fee)

    const store = deployed.contractAddress as Hex
    const call = await sendSigned(t, 7, { to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [42n] }), gas: 100_000n })
    const calledIn = await t.mine()
    expect(await expectFeesConserved(t, call, await l1ValuesAt(t, calledIn))).toMatchObject({ status: '0x1' })
    expect(await t.rpc('eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(42n))
  })
})

describe('receipts in clients', () => {
  let transfer: Hex
  let deposit: Hex
  let number: bigint
  const depositor = freshAccount().address

  beforeAll(async () => {
    transfer = (await sendSigned(t, 8, { to: t.accounts[9]!.address, value: 3n, gas: 21_000n })).hash
    deposit = await t.rpc<Hex>('flashchain_sendDeposit', [
      depositRequest({ from: depositor, to: t.accounts[9]!.address, mint: 10n, value: 4n, gas: 30_000n }),
    ])
    number = await t.mine()
  })

  it('debug_getRawReceipts: the receipts root of the block, a deposit’s receipt encoded with its nonce and version', async () => {
    const raws = await t.rpc<Hex[]>('debug_getRawReceipts', [toHex(number)])
    const trie = new MerklePatriciaTrie()
    for (const [i, raw] of raws.entries()) await trie.put(RLP.encode(i), hexToBytes(raw))
    expect(bytesToHex(trie.root())).toBe((await block(t, number)).receiptsRoot)
    // The L1 attributes deposit's: 0x7e ‖ rlp([status, cumulative gas, bloom, logs, depositNonce, version 1]).
    const fields = RLP.decode(hexToBytes(raws[0]!).subarray(1)) as Uint8Array[]
    expect(raws[0]!.slice(0, 4)).toBe('0x7e')
    expect(fields).toHaveLength(6)
    expect(bytesToHex(fields[5]!)).toBe('0x01')
  })

  it('viem’s OP Stack formatters: L1 fields as bigints on a transaction’s receipt, the deposit nonce on a deposit’s', async () => {
    const client = opStackClient(t.url)
    const normal = await client.getTransactionReceipt({ hash: transfer })
    expect(normal).toMatchObject({ status: 'success', transactionIndex: 2, l1Fee: TRANSFER_L1_FEE, l1GasPrice: BASE_L1.l1BaseFee, l1GasUsed: 1600n })
    const deposited = await client.getTransactionReceipt({ hash: deposit })
    // viem names a deposit's transaction type 'deposit' but leaves its receipt's type as the wire has it.
    expect(deposited).toMatchObject({ status: 'success', transactionIndex: 1, type: '0x7e', depositNonce: 0n, depositReceiptVersion: 1, l1Fee: null })
    const viewed = await client.getBlock({ blockNumber: number, includeTransactions: true })
    expect(viewed.transactions.map((tx) => tx.type)).toEqual(['deposit', 'deposit', 'eip1559'])
  })

  it('eth_getBlockReceipts answers each receipt as eth_getTransactionReceipt does, deposits and L1 fields included', async () => {
    const sealed = await block(t, number)
    const receipts = await Promise.all(sealed.transactions.map((tx) => receipt(t, tx.hash)))
    expect(await t.rpc('eth_getBlockReceipts', [toHex(number)])).toEqual(receipts)
    expect(receipts.map((each) => each.depositNonce !== undefined)).toEqual([true, true, false])
  })

  it('ethers v6: receipts of a transaction and of a deposit, and a block holding deposits with its transactions', async () => {
    const provider = new JsonRpcProvider(t.url, 31337, { staticNetwork: true })
    try {
      const normal = await provider.getTransactionReceipt(transfer)
      expect({ status: normal?.status, index: normal?.index, type: normal?.type, blockNumber: normal?.blockNumber }).toEqual({
        status: 1,
        index: 2,
        type: 2,
        blockNumber: Number(number),
      })
      const deposited = await provider.getTransactionReceipt(deposit)
      expect({ status: deposited?.status, index: deposited?.index, type: deposited?.type, gasPrice: deposited?.gasPrice }).toEqual({
        status: 1,
        index: 1,
        type: 126,
        gasPrice: 0n,
      })
      const viewed = await provider.getBlock(Number(number), true)
      expect(viewed?.prefetchedTransactions.map((tx) => [tx.hash, tx.type])).toEqual([
        [viewed?.prefetchedTransactions[0]?.hash, 126],
        [deposit, 126],
        [transfer, 2],
      ])
      // A deposit reads as a transaction of type 126 with no fee and an all-zero signature; ethers drops mint and sourceHash.
      const depositTx = await provider.getTransaction(deposit)
      expect({
        type: depositTx?.type,
        from: depositTx?.from.toLowerCase(),
        value: depositTx?.value,
        gasPrice: depositTx?.gasPrice,
        nonce: depositTx?.nonce,
        r: depositTx?.signature.r,
        mint: (depositTx as unknown as { mint?: unknown }).mint,
      }).toEqual({ type: 126, from: depositor.toLowerCase(), value: 4n, gasPrice: 0n, nonce: 0, r: ZERO_WORD, mint: undefined })
    } finally {
      provider.destroy()
    }
  })
})

describe('snapshots', () => {
  /** A chain of its own, so that a block left half built here opens no other test's block. */
  let s: TestChain

  beforeAll(async () => {
    s = await startChain({ opStack: true })
  })

  afterAll(async () => {
    await s?.close()
  })

  it('evm_revert to a snapshot taken over a pre-confirmed deposit: the rebuilt block holds it once, after a new L1 attributes deposit', async () => {
    const from = freshAccount().address
    const hash = await s.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 2000n, gas: 30_000n })])
    expect((await s.preconfirm()).transactions).toContain(hash)
    const id = await s.rpc<Hex>('evm_snapshot')
    const first = await s.mine()
    expect(await balance(s, from)).toBe(2000n)
    expect(await s.rpc('evm_revert', [id])).toBe(true)
    // The block being built comes back as it was: the deposit pre-confirmed at index 1.
    expect((await s.rpc<{ transactions: Hex[] }>('eth_getBlockByNumber', ['pending', false])).transactions.slice(1)).toEqual([hash])
    const number = await s.mine()
    expect(number).toBe(first)
    const sealed = await block(s, number)
    expect(sealed.transactions.map((tx) => tx.from)).toEqual([DEPOSITOR, from.toLowerCase()])
    expect(sealed.transactions[1]!.hash).toBe(hash)
    expect(await receipt(s, hash)).toMatchObject({ status: '0x1', transactionIndex: '0x1', depositNonce: '0x0' })
    expect(await balance(s, from)).toBe(2000n)
  })

  it('evm_revert takes back the deposits sent after the snapshot, pre-confirmed or waiting, as it takes back transactions', async () => {
    const from = freshAccount().address
    const waiting = freshAccount().address
    const id = await s.rpc<Hex>('evm_snapshot')
    const hash = await s.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 1000n, gas: 30_000n })])
    const sent = await s.wallet(0).sendTransaction({ to: from, value: 1n })
    expect((await s.preconfirm()).transactions).toEqual(expect.arrayContaining([hash, sent]))
    const queued = await s.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from: waiting, to: waiting, mint: 7n, gas: 30_000n })])
    expect(await s.rpc('evm_revert', [id])).toBe(true)
    const sealed = await block(s, await s.mine())
    // The block opens with its L1 attributes deposit, and nothing sent after the snapshot is in it.
    expect(sealed.transactions.map((tx) => tx.from)).toEqual([DEPOSITOR])
    for (const gone of [hash, sent, queued]) expect(await s.rpc('eth_getTransactionReceipt', [gone])).toBeNull()
    expect(await balance(s, from)).toBe(0n)
    expect(await balance(s, waiting)).toBe(0n)
    expect((await block(s, await s.mine())).transactions.map((tx) => tx.from)).toEqual([DEPOSITOR])
  })
})

describe('tracing', () => {
  it('debug_traceTransaction replays a block’s deposits: a deposit and the transaction it funded both trace', async () => {
    const fresh = freshAccount()
    const recipient = freshAccount().address
    const deposit = await t.rpc<Hex>('flashchain_sendDeposit', [
      depositRequest({ from: fresh.address, to: recipient, mint: parseEther('1'), value: 11n, gas: 40_000n }),
    ])
    await t.preconfirm()
    const raw = await fresh.signTransaction({
      chainId: 31337,
      nonce: 1,
      to: recipient,
      value: 12n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
    const sent = await t.rpc<Hex>('eth_sendRawTransaction', [raw])
    const number = await t.mine()

    expect(await t.rpc('debug_traceTransaction', [deposit, { tracer: 'callTracer' }])).toMatchObject({
      type: 'CALL',
      from: fresh.address.toLowerCase(),
      to: recipient.toLowerCase(),
      value: '0xb',
      gas: toHex(40_000n),
      gasUsed: toHex(21_000n),
    })
    const traced = await t.rpc<Json>('debug_traceTransaction', [sent, { tracer: 'callTracer' }])
    expect(traced).toMatchObject({
      type: 'CALL',
      from: fresh.address.toLowerCase(),
      to: recipient.toLowerCase(),
      value: '0xc',
      gasUsed: toHex(21_000n),
    })
    expect(traced.error).toBeUndefined()

    // The replay charges the L1 fee as the block did: the sender's balance moves by value, gas and L1 fee.
    type Prestate = { pre: Record<string, { balance: Hex }>; post: Record<string, { balance: Hex }> }
    const diff = await t.rpc<Prestate>('debug_traceTransaction', [sent, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])
    const sender = fresh.address.toLowerCase()
    const paid = await receipt(t, sent)
    expect(BigInt(diff.pre[sender]!.balance) - BigInt(diff.post[sender]!.balance)).toBe(
      12n + BigInt(paid.gasUsed) * BigInt(paid.effectiveGasPrice) + BigInt(paid.l1Fee!),
    )

    const traces = await t.rpc<{ txHash: Hex; result: Json }[]>('debug_traceBlockByNumber', [toHex(number), { tracer: 'callTracer' }])
    const sealed = await block(t, number)
    expect(traces.map((trace) => trace.txHash)).toEqual(sealed.transactions.map((tx) => tx.hash))
    expect(traces.map((trace) => [trace.result.from, trace.result.to])).toEqual([
      [DEPOSITOR, L1_BLOCK],
      [fresh.address.toLowerCase(), recipient.toLowerCase()],
      [fresh.address.toLowerCase(), recipient.toLowerCase()],
    ])
    expect(traces[2]!.result).toEqual(traced)
  })
})

describe('subscriptions', () => {
  it('eth_subscribe("logs") and ("newHeads") see a deposit’s log and its block', async () => {
    const { hash: deployed } = await sendSigned(t, 5, {
      data: encodeDeployData({ abi: Store.abi, bytecode: Store.bytecode, args: [1n] }),
      gas: 500_000n,
    })
    await t.mine()
    const store = (await receipt(t, deployed)).contractAddress as Hex
    const client = await connect(wsUrl(t.url))
    try {
      const heads = await client.subscribe(['newHeads'])
      const logs = await client.subscribe(['logs', { address: store }])
      const from = freshAccount().address
      const hash = await t.rpc<Hex>('flashchain_sendDeposit', [
        depositRequest({ from, to: store, gas: 100_000n, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [77n] }) }),
      ])
      const number = await t.mine()
      const log = await client.notification<Json>(logs)
      expect(log).toMatchObject({
        address: store,
        transactionHash: hash,
        transactionIndex: '0x1',
        blockNumber: toHex(number),
        topics: [VALUE_SET, word(77n), word(hexToBigInt(from))],
      })
      let head = await client.notification<Json>(heads)
      for (let i = 0; i < 5 && head.number !== toHex(number); i++) head = await client.notification<Json>(heads)
      expect(head).toMatchObject({ number: toHex(number), miner: SEQUENCER_FEE_VAULT })
    } finally {
      await client.close()
    }
  })
})

describe('flashchain_setL1Values and mining auto', () => {
  /** Chain B: an OP Stack chain sealing each transaction (and each deposit) as it arrives. */
  let b: TestChain
  const set = {
    l1BaseFee: 2_000_000_000n,
    l1BlobBaseFee: 3n,
    baseFeeScalar: 1000n,
    blobBaseFeeScalar: 2000n,
    operatorFeeScalar: 7n,
    operatorFeeConstant: 1000n,
    daFootprintGasScalar: 500n,
  }

  beforeAll(async () => {
    b = await startChain({ opStack: true, mining: 'auto', workers: 0 })
  })

  afterAll(async () => {
    await b?.close()
  })

  it('under mining auto, flashchain_sendDeposit answers once the deposit’s block is sealed', async () => {
    const head = await b.blockNumber()
    const from = freshAccount().address
    const hash = await b.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 5n, gas: 30_000n })])
    expect(await receipt(b, hash)).toMatchObject({ status: '0x1', blockNumber: toHex(head + 1n), transactionIndex: '0x1' })
    expect(await b.blockNumber()).toBe(head + 1n)
    expect(await balance(b, from)).toBe(5n)
  })

  it('sets the L1 values: the oracles read them, transactions pay by them with the operator fee, later blocks keep them', async () => {
    const client = opStackClient(b.url)
    const transfer = { account: b.accounts[1]!.address, to: b.accounts[2]!.address, value: 1n }
    expect(await client.estimateOperatorFee(transfer)).toBe(0n)
    const wire = Object.fromEntries(Object.entries(set).map(([name, value]) => [name, toHex(value)]))
    expect(await b.rpc('flashchain_setL1Values', [wire])).toBeNull()
    expect(await l1ValuesAt(b, await b.blockNumber())).toEqual(set)
    expect(await client.getL1BaseFee()).toBe(set.l1BaseFee)
    expect(await client.estimateOperatorFee(transfer)).toBe(21_000n * 7n * 100n + 1000n)

    const sent = await sendSigned(b, 3, { to: freshAccount().address, value: 1n, gas: 21_000n })
    const mined = await expectFeesConserved(b, sent, set)
    expect(mined).toMatchObject({
      l1GasPrice: toHex(set.l1BaseFee),
      l1BaseFeeScalar: toHex(set.baseFeeScalar),
      l1BlobBaseFee: toHex(set.l1BlobBaseFee),
      l1BlobBaseFeeScalar: toHex(set.blobBaseFeeScalar),
      operatorFeeScalar: toHex(set.operatorFeeScalar),
      operatorFeeConstant: toHex(set.operatorFeeConstant),
      daFootprintGasScalar: toHex(set.daFootprintGasScalar),
    })
    expect(await balance(b, OPERATOR_FEE_VAULT)).toBe(21_000n * 7n * 100n + 1000n)

    await b.rpc('evm_mine')
    await b.rpc('evm_mine')
    const head = await b.blockNumber()
    expect(await l1ValuesAt(b, head)).toEqual(set)
    const attributes = (await block(b, head)).transactions[0]!
    expect(hexToBigInt(`0x${attributes.input.slice(2 + 36 * 2, 2 + 68 * 2)}`)).toBe(set.l1BaseFee)
  })

  it('a value left out keeps its own; a value too wide for its field is invalid params', async () => {
    expect(await b.rpc('flashchain_setL1Values', [{ l1BaseFee: toHex(5n) }])).toBeNull()
    expect(await l1ValuesAt(b, await b.blockNumber())).toEqual({ ...set, l1BaseFee: 5n })
    const wide = await b.rpcError('flashchain_setL1Values', [{ baseFeeScalar: toHex(1n << 32n) }])
    expect(wide.code).toBe(-32602)
    expect(wide.message).toContain('baseFeeScalar')
    expect(await l1ValuesAt(b, await b.blockNumber())).toEqual({ ...set, l1BaseFee: 5n })
  })
})

describe('persistence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flashchain-opstack-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('queued deposits survive a restart, in their order, and are sealed once; the data dir refuses to start without --op-stack', async () => {
    const dataDir = join(dir, 'node')
    const from = freshAccount().address
    const first = await startChain({ opStack: true, dataDir })
    const hashes: Hex[] = []
    try {
      // Three, to see them come back in the order they were sent.
      for (const mint of [100n, 20n, 3n])
        hashes.push(await first.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint, gas: 30_000n })]))
    } finally {
      await first.close()
    }
    const second = await startChain({ opStack: true, dataDir })
    try {
      const number = await second.mine()
      const sealed = await block(second, number)
      expect(sealed.transactions.map((tx) => tx.hash).slice(1)).toEqual(hashes)
      expect(await receipt(second, hashes[0]!)).toMatchObject({ status: '0x1', transactionIndex: '0x1', depositNonce: '0x0' })
      expect(await receipt(second, hashes[2]!)).toMatchObject({ status: '0x1', transactionIndex: '0x3', depositNonce: '0x2' })
      expect(await balance(second, from)).toBe(123n)
    } finally {
      await second.close()
    }
    const third = await startChain({ opStack: true, dataDir })
    try {
      // Sealed before the restart: not queued again.
      const number = await third.mine()
      expect((await block(third, number)).transactions.map((tx) => tx.from)).toEqual([DEPOSITOR])
      expect(await balance(third, from)).toBe(123n)
    } finally {
      await third.close()
    }
    await expect(startChain({ dataDir })).rejects.toThrow(/--op-stack/)
  })

  it('deposits waiting again after a revert keep their place before later ones across a restart', async () => {
    const dataDir = join(dir, 'revert')
    const from = freshAccount().address
    const first = await startChain({ opStack: true, dataDir })
    let d1: Hex
    let d2: Hex
    try {
      d1 = await first.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 1n, gas: 30_000n })])
      const snapshot = await first.rpc<Hex>('evm_snapshot')
      await first.mine()
      expect(await first.rpc('evm_revert', [snapshot])).toBe(true)
      d2 = await first.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 2n, gas: 30_000n })])
    } finally {
      await first.close()
    }
    const second = await startChain({ opStack: true, dataDir })
    try {
      const sealed = await block(second, await second.mine())
      expect(sealed.transactions.map((tx) => tx.hash).slice(1)).toEqual([d1, d2])
    } finally {
      await second.close()
    }
  })
})

describe('a chain without --op-stack', () => {
  let plain: TestChain

  beforeAll(async () => {
    plain = await startChain()
  })

  afterAll(async () => {
    await plain?.close()
  })

  it('has no L1Block, no L1 fields in receipts, and refuses deposits and L1 values naming --op-stack', async () => {
    expect(await plain.rpc('eth_getCode', [L1_BLOCK, 'latest'])).toBe('0x')
    const sent = await sendSigned(plain, 1, { to: plain.accounts[2]!.address, value: 1n, gas: 21_000n })
    const number = await plain.mine()
    const mined = await receipt(plain, sent.hash)
    expect(mined.status).toBe('0x1')
    expect(Object.keys(mined).filter((key) => key.startsWith('l1') || key.startsWith('deposit'))).toEqual([])
    expect((await block(plain, number)).transactions.map((tx) => tx.hash)).toEqual([sent.hash])

    const deposit = await plain.rpcError('flashchain_sendDeposit', [
      depositRequest({ from: plain.accounts[1]!.address, to: plain.accounts[2]!.address, mint: 1n, gas: 30_000n }),
    ])
    expect(deposit.message).toContain('--op-stack')
    const values = await plain.rpcError('flashchain_setL1Values', [{ l1BaseFee: '0x1' }])
    expect(values.message).toContain('--op-stack')
  })
})

describe('wallet_sendCalls', () => {
  it('wallet_getCallsStatus gives each receipt’s L1 fee, the one its transaction paid', async () => {
    const from = t.accounts[6]!.address
    const { id } = await t.rpc<{ id: string }>('wallet_sendCalls', [
      {
        version: '2.0.0',
        from,
        chainId: toHex(31337n),
        atomicRequired: true,
        calls: [
          { to: t.accounts[7]!.address, value: '0x5' },
          { to: t.accounts[8]!.address, value: '0x6' },
        ],
      },
    ])
    await t.mine()
    const status = await t.rpc<{ status: number; receipts: { transactionHash: Hex; l1Fee?: Hex }[] }>('wallet_getCallsStatus', [id])
    expect(status.status).toBe(200)
    expect(status.receipts).toHaveLength(1)
    const paid = await receipt(t, status.receipts[0]!.transactionHash)
    expect(BigInt(status.receipts[0]!.l1Fee!)).toBeGreaterThan(0n)
    expect(status.receipts[0]!.l1Fee).toBe(paid.l1Fee)
  })
})

describe('a fork of an OP Stack chain', () => {
  let upstream: TestChain
  let fork: TestChain
  const l1Sender = freshAccount().address

  beforeAll(async () => {
    upstream = await startChain({ opStack: true, mining: 'auto' })
    await upstream.rpc('flashchain_setL1Values', [{ l1BaseFee: toHex(3_000_000_000n), operatorFeeConstant: toHex(7n) }])
    await upstream.rpc('flashchain_sendDeposit', [depositRequest({ from: l1Sender, to: l1Sender, mint: 500n, gas: 30_000n })])
    fork = await startChain({ opStack: true, fork: { url: upstream.url, cacheDir: false } })
  })

  afterAll(async () => {
    await fork?.close()
    await upstream?.close()
  })

  it('keeps the upstream’s predeploys and L1 values; its own blocks open with an L1 attributes deposit and charge by them', async () => {
    for (const address of [GAS_PRICE_ORACLE, L1_BLOCK]) {
      expect(await fork.rpc('eth_getCode', [address, 'latest'])).toBe(await upstream.rpc('eth_getCode', [address, 'latest']))
    }
    expect(await fork.rpc('eth_getStorageAt', [L1_BLOCK, '0x1', 'latest'])).toBe(word(3_000_000_000n))
    expect(await balance(fork, l1Sender)).toBe(500n)

    const sent = await sendSigned(fork, 2, { to: t.accounts[3]!.address, value: 1n, gas: 21_000n })
    const deposit = await fork.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from: l1Sender, to: l1Sender, mint: 1n, gas: 30_000n })])
    const number = await fork.mine()
    const sealed = await block(fork, number)
    expect(sealed.transactions.map((tx) => tx.from)).toEqual([DEPOSITOR, l1Sender.toLowerCase(), t.accounts[2]!.address.toLowerCase()])
    expect(sealed.transactions[1]!.hash).toBe(deposit)
    expect(await receipt(fork, deposit)).toMatchObject({ status: '0x1', depositNonce: '0x1' })
    const paid = await receipt(fork, sent.hash)
    expect(paid).toMatchObject({ l1GasPrice: toHex(3_000_000_000n), operatorFeeConstant: '0x7' })
    expect(BigInt(paid.l1Fee!)).toBeGreaterThan(TRANSFER_L1_FEE)
    expect(await balance(fork, l1Sender)).toBe(501n)
  })
})

describe('the deposit rules at their edges', () => {
  let e: TestChain

  beforeAll(async () => {
    e = await startChain({ opStack: true })
  })

  afterAll(async () => {
    await e?.close()
  })

  it('a deposit whose gas is under EIP-7623’s floor fails whole: all its gas used, its mint kept, its nonce moved', async () => {
    const from = freshAccount().address
    // 1,000 non-zero bytes: intrinsic 37,000, floor 21,000 + 4,000 tokens × 10 = 61,000.
    const hash = await e.rpc<Hex>('flashchain_sendDeposit', [
      depositRequest({ from, to: freshAccount().address, mint: 9n, gas: 40_000n, data: `0x${'ab'.repeat(1000)}` }),
    ])
    await e.mine()
    expect(await receipt(e, hash)).toMatchObject({ status: '0x0', gasUsed: toHex(40_000n) })
    expect(await balance(e, from)).toBe(9n)
    expect(await nonce(e, from)).toBe(1n)
  })

  it('a system deposit fails, as none may be sent since Regolith', async () => {
    const from = freshAccount().address
    const hash = await e.rpc<Hex>('flashchain_sendDeposit', [{ ...depositRequest({ from, to: from, mint: 5n, gas: 30_000n }), isSystemTx: true }])
    await e.mine()
    expect(await receipt(e, hash)).toMatchObject({ status: '0x0', gasUsed: toHex(30_000n) })
    expect((await e.rpc<{ isSystemTx?: boolean }>('eth_getTransactionByHash', [hash])).isSystemTx).toBe(true)
    expect(await balance(e, from)).toBe(5n)
  })

  it('a contract a deposit creates and self-destructs in its creation is gone (EIP-6780), as after any transaction', async () => {
    const from = freshAccount().address
    // Init code: SELFDESTRUCT to the caller (CALLER, SELFDESTRUCT).
    const hash = await e.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, isCreation: true, gas: 100_000n, data: '0x33ff' })])
    await e.mine()
    const mined = await receipt(e, hash)
    expect(mined.status).toBe('0x1')
    const created = getContractAddress({ from, nonce: 0n })
    expect(await nonce(e, created)).toBe(0n)
    expect(await e.rpc('eth_getCode', [created, 'latest'])).toBe('0x')
  })

  it('deposits take no more gas than a block holds: one too large is refused, the rest wait for the next block', async () => {
    const from = freshAccount().address
    // The block gas limit is 30M; the L1 attributes deposit takes 1M of it.
    const tooLarge = await e.rpcError('flashchain_sendDeposit', [depositRequest({ from, to: from, gas: 29_000_001n })])
    expect(tooLarge.code).toBe(-32602)
    expect(tooLarge.message).toContain('29000001')
    const hashes: Hex[] = []
    for (let i = 0; i < 3; i++)
      hashes.push(await e.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 1n, gas: 12_000_000n })]))
    const first = await block(e, await e.mine())
    expect(first.transactions.map((tx) => tx.hash).slice(1)).toEqual(hashes.slice(0, 2))
    const second = await block(e, await e.mine())
    expect(second.transactions.map((tx) => tx.hash).slice(1)).toEqual(hashes.slice(2))
    expect(await balance(e, from)).toBe(3n)
  })

  it('a deposit a lowered gas limit leaves too large is dropped, and the deposits behind it run', async () => {
    const r = await startChain({ opStack: true })
    try {
      const from = freshAccount().address
      const large = await r.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 1n, gas: 20_000_000n })])
      const small = await r.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 2n, gas: 30_000n })])
      await r.rpc('evm_setBlockGasLimit', [toHex(15_000_000n)])
      const sealed = await block(r, await r.mine())
      expect(sealed.transactions.map((tx) => tx.hash).slice(1)).toEqual([small])
      expect(await r.rpc('eth_getTransactionReceipt', [large])).toBeNull()
      expect(await balance(r, from)).toBe(2n)
      // A block must hold the L1 attributes deposit's million.
      expect((await r.rpcError('evm_setBlockGasLimit', [toHex(1_000_000n)])).code).toBe(-32602)
    } finally {
      await r.close()
    }
  })

  it('a sender who can pay gas and value but not the L1 fee is refused at the door, and dropped if the fee rises after', async () => {
    const lines: string[] = []
    const r = await startChain({ opStack: true, log: (line) => lines.push(line) })
    try {
      const sender = freshAccount()
      const signed = (nonce: number) =>
        sender.signTransaction({
          chainId: 31337,
          type: 'eip1559',
          nonce,
          to: sender.address,
          value: 1n,
          gas: 21_000n,
          maxFeePerGas: parseGwei('10'),
          maxPriorityFeePerGas: parseGwei('1'),
        })
      const gasAndValue = 21_000n * parseGwei('10') + 1n
      // Exactly gas and value: the L1 fee is missing, as the pool counts it.
      await r.rpc('flashchain_sendDeposit', [depositRequest({ from: sender.address, to: sender.address, mint: gasAndValue, gas: 30_000n })])
      await r.mine()
      const refused = await r.rpcError('eth_sendRawTransaction', [await signed(1)])
      expect(refused.message).toMatch(/^insufficient funds for gas \* price \+ value: address 0x[0-9a-f]{40} have \d+ want \d+$/)
      // Enough for the L1 fee as it is; then L1's base fee rises a thousandfold before the block runs it.
      await r.rpc('flashchain_sendDeposit', [depositRequest({ from: sender.address, to: sender.address, mint: TRANSFER_L1_FEE * 2n, gas: 30_000n })])
      await r.mine()
      const hash = await r.rpc<Hex>('eth_sendRawTransaction', [await signed(2)])
      await r.rpc('flashchain_setL1Values', [{ l1BaseFee: toHex(BASE_L1.l1BaseFee * 1000n) }])
      const sealed = await block(r, await r.mine())
      expect(sealed.transactions.map((tx) => tx.hash)).not.toContain(hash)
      expect(await r.rpc('eth_getTransactionReceipt', [hash])).toBeNull()
      // Dropped for what its run costs with the L1 fee, now about a thousand times the transfer's.
      const dropped = lines.find((line) => line.includes(`dropped ${hash}`))!
      const cost = BigInt(/upfront cost is: (\d+)/.exec(dropped)![1]!)
      expect(cost).toBeGreaterThan(gasAndValue + 900n * TRANSFER_L1_FEE)
    } finally {
      await r.close()
    }
  })

  it('eth_feeHistory counts a deposit’s tip as 0, never below', async () => {
    const from = freshAccount().address
    await e.rpc('flashchain_sendDeposit', [depositRequest({ from, to: from, gas: 30_000n })])
    const number = await e.mine()
    const history = await e.rpc<{ reward: Hex[][] }>('eth_feeHistory', ['0x1', toHex(number), [0, 50, 100]])
    expect(history.reward).toEqual([['0x0', '0x0', '0x0']])
  })
})

describe('deposits sent again at once', () => {
  it('under auto mining, forty sends of one deposit are one deposit: the rest are already known', async () => {
    const auto = await startChain({ opStack: true, mining: 'auto' })
    try {
      const from = freshAccount().address
      const envelope = serializeTransaction({ type: 'deposit', sourceHash: keccak256('0x5e4d'), from, to: from, mint: 1n, gas: 30_000n })
      const answers = await Promise.all(Array.from({ length: 40 }, () => auto.send('flashchain_sendDeposit', [envelope])))
      expect(answers.filter((answer) => answer.result !== undefined)).toHaveLength(1)
      expect(answers.filter((answer) => answer.error?.message === 'already known')).toHaveLength(39)
      expect(await balance(auto, from)).toBe(1n)
    } finally {
      await auto.close()
    }
  })
})

describe('blob transactions', () => {
  it('are refused, as an OP Stack chain takes none', async () => {
    const signer = privateKeyToAccount(generatePrivateKey())
    const raw = await signer.signTransaction({
      type: 'eip4844',
      chainId: 31337,
      nonce: 0,
      to: signer.address,
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
      maxFeePerBlobGas: parseGwei('1'),
      blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
    })
    const error = await t.rpcError('eth_sendRawTransaction', [raw])
    expect(error.message).toBe('transaction type not supported')
  })
})

describe('the flashblocks stream', () => {
  it('carries a block’s deposits in its flashblock 0, each receipt under Deposit with its nonce, as Base’s does', async () => {
    const reader = await readFlashblocks(t.url)
    try {
      const from = freshAccount().address
      const hash = await t.rpc<Hex>('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 3n, gas: 30_000n })])
      const number = await t.mine()
      await reader.until((got) => got.some((frame) => frame.metadata.block_number === Number(number) && frame.index === 0))
      const first = reader.got.find((frame) => frame.metadata.block_number === Number(number) && frame.index === 0)!
      const sealed = await block(t, number)
      expect(first.diff.transactions.map((raw) => keccak256(raw as Hex))).toEqual(sealed.transactions.slice(0, 2).map((tx) => tx.hash))
      expect(first.diff.transactions.every((raw) => raw.startsWith('0x7e'))).toBe(true)
      expect(first.metadata.receipts[hash]).toEqual({
        Deposit: {
          status: '0x1',
          cumulativeGasUsed: (await receipt(t, hash)).cumulativeGasUsed,
          logs: [],
          depositNonce: '0x0',
          depositReceiptVersion: '0x1',
        },
      })
    } finally {
      await reader.close()
    }
  })
})

describe('a reset', () => {
  it('brings the predeploys back with block 0, and drops the deposits waiting', async () => {
    const r = await startChain({ opStack: true })
    try {
      const from = freshAccount().address
      await r.rpc('flashchain_setL1Values', [{ l1BaseFee: '0x7' }])
      await r.rpc('anvil_setCode', [GAS_PRICE_ORACLE, '0x'])
      await r.mine()
      await r.rpc('flashchain_sendDeposit', [depositRequest({ from, to: from, mint: 4n, gas: 30_000n })])
      await r.rpc('anvil_reset', [])
      expect(await r.blockNumber()).toBe(0n)
      expect(await r.rpc('eth_getCode', [GAS_PRICE_ORACLE, 'latest'])).toBe(await t.rpc('eth_getCode', [GAS_PRICE_ORACLE, '0x0']))
      expect(await r.rpc('eth_getStorageAt', [L1_BLOCK, '0x1', 'latest'])).toBe(word(BASE_L1.l1BaseFee))
      const sealed = await block(r, await r.mine())
      expect(sealed.transactions.map((tx) => tx.from)).toEqual([DEPOSITOR])
      expect(await balance(r, from)).toBe(0n)
    } finally {
      await r.close()
    }
  })
})
