import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM } from '@ethereumjs/evm'
import { createAccount, createAddressFromString } from '@ethereumjs/util'
import { decodeFunctionResult, encodeFunctionData, encodePacked, keccak256, parseAbi, toFunctionSelector } from 'viem'
import { beforeAll, describe, expect, test } from 'vitest'

import { bytesToHex, hexToBytes } from '../../hex.ts'
import { systemContracts } from '../spec/systemContracts.ts'
import { accounts, codes, jovianImplementations } from './predeploys.data.ts'
import { GAS_PRICE_ORACLE, L1_ATTRIBUTES_DEPOSITOR, L1_BLOCK, WETH, opStackAlloc } from './predeploys.ts'

import type { EVM } from '@ethereumjs/evm'
import type { Hex } from '../../hex.ts'

const abi = parseAbi([
  'function version() view returns (string)',
  'function isEcotone() view returns (bool)',
  'function isFjord() view returns (bool)',
  'function isIsthmus() view returns (bool)',
  'function isJovian() view returns (bool)',
  'function l1BaseFee() view returns (uint256)',
  'function baseFeeScalar() view returns (uint32)',
  'function blobBaseFeeScalar() view returns (uint32)',
  'function getL1Fee(bytes) view returns (uint256)',
  'function getOperatorFee(uint256) view returns (uint256)',
  'function number() view returns (uint64)',
  'function daFootprintGasScalar() view returns (uint16)',
  'function getChainId() view returns (uint256)',
  'function aggregate3((address target, bool allowFailure, bytes callData)[]) payable returns ((bool success, bytes returnData)[])',
  'function deposit() payable',
  'function balanceOf(address) view returns (uint256)',
])
type FunctionName = (typeof abi)[number]['name']

const MULTICALL3: Hex = '0xca11bde05977b3631167028862be2a173976ca11'
const caller: Hex = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
// An unsigned EIP-1559 transfer of 1 ether, as a wallet asks getL1Fee about it before signing.
const unsignedTransfer: Hex = '0x02f282210501843b9aca0085012a05f2008252089470997970c51812dc3a010c7d01b50e0d17dc79c8880de0b6b3a764000080c0'

let evm: EVM

beforeAll(async () => {
  evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })
  for (const [address, account] of opStackAlloc()) {
    const at = createAddressFromString(address)
    await evm.stateManager.putAccount(at, createAccount({ nonce: account.nonce, balance: account.balance }))
    await evm.stateManager.putCode(at, account.code)
    for (const [key, value] of account.storage) await evm.stateManager.putStorage(at, hexToBytes(key), value)
  }
  await evm.stateManager.putAccount(createAddressFromString(caller), createAccount({ nonce: 0n, balance: 10n ** 18n }))
})

async function run(to: Hex, data: Hex, options: { from?: Hex; value?: bigint } = {}) {
  const { execResult } = await evm.runCall({
    to: createAddressFromString(to),
    caller: createAddressFromString(options.from ?? caller),
    data: hexToBytes(data),
    value: options.value ?? 0n,
    gasLimit: 5_000_000n,
  })
  return { error: execResult.exceptionError?.error, returnData: bytesToHex(execResult.returnValue) }
}

async function read(to: Hex, functionName: FunctionName, args: readonly unknown[] = []): Promise<unknown> {
  const { error, returnData } = await run(to, encodeFunctionData({ abi, functionName, args } as never))
  expect(error).toBeUndefined()
  return decodeFunctionResult({ abi, functionName, data: returnData } as never)
}

const codeAt = async (address: Hex) => bytesToHex(await evm.stateManager.getCode(createAddressFromString(address)))

describe('the data', () => {
  test('the Jovian implementations have the code hashes the upgrade requires', async () => {
    expect(jovianImplementations.l1Block.codeHash).toBe('0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1')
    expect(jovianImplementations.gasPriceOracle.codeHash).toBe('0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614')
    expect(keccak256(await codeAt(jovianImplementations.l1Block.address))).toBe(jovianImplementations.l1Block.codeHash)
    expect(keccak256(await codeAt(jovianImplementations.gasPriceOracle.address))).toBe(jovianImplementations.gasPriceOracle.codeHash)
  })

  test('the namespace holds 2,046 proxies with one code, each administered by ProxyAdmin, and WETH', () => {
    const namespace = accounts.filter((account) => account.address.startsWith('0x42000000000000000000000000000000000'))
    expect(namespace).toHaveLength(2047)
    expect(namespace.some((account) => account.address === '0x4200000000000000000000000000000000000042')).toBe(false)
    const proxies = namespace.filter((account) => account.address !== WETH)
    expect(new Set(proxies.map((account) => account.code))).toEqual(new Set([0]))
    for (const proxy of proxies) {
      expect(proxy.storage).toContainEqual([
        '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
        '0x0000000000000000000000004200000000000000000000000000000000000018',
      ])
    }
    expect(accounts.filter((account) => account.code === 0)).toHaveLength(2046)
    expect(accounts.find((account) => account.address === WETH)!.code).not.toBe(0)
  })

  test('each runtime code is written once', () => {
    expect(new Set(codes).size).toBe(codes.length)
    expect(new Set(accounts.map((account) => account.code))).toEqual(new Set(codes.keys()))
  })

  test('opStackAlloc() gives each account its code and no balance, one array per distinct code', () => {
    const alloc = opStackAlloc()
    expect(alloc.size).toBe(2047 + 20 + 14)
    expect([...alloc.values()].every((account) => account.balance === 0n && account.code.length > 0)).toBe(true)
    expect(new Set([...alloc.values()].map((account) => account.code)).size).toBe(codes.length)
    // The chain puts its system contracts in genesis itself.
    for (const contract of Object.values(systemContracts)) expect(alloc.has(contract.address)).toBe(false)
    expect(alloc.get(MULTICALL3)!.nonce).toBe(1n)
  })
})

describe('L1Block and GasPriceOracle', () => {
  test('version() through the proxies: L1Block 1.7.0, GasPriceOracle 1.6.0', async () => {
    expect(await read(L1_BLOCK, 'version')).toBe('1.7.0')
    expect(await read(GAS_PRICE_ORACLE, 'version')).toBe('1.6.0')
    expect(jovianImplementations.l1Block.version).toBe('1.7.0')
    expect(jovianImplementations.gasPriceOracle.version).toBe('1.6.0')
  })

  test('GasPriceOracle is at Ecotone, Fjord, Isthmus and Jovian', async () => {
    expect(await read(GAS_PRICE_ORACLE, 'isEcotone')).toBe(true)
    expect(await read(GAS_PRICE_ORACLE, 'isFjord')).toBe(true)
    expect(await read(GAS_PRICE_ORACLE, 'isIsthmus')).toBe(true)
    expect(await read(GAS_PRICE_ORACLE, 'isJovian')).toBe(true)
  })

  test('GasPriceOracle reads the L1 base fee and the scalars from L1Block', async () => {
    expect(await read(GAS_PRICE_ORACLE, 'l1BaseFee')).toBe(0x5f629c02n)
    expect(await read(GAS_PRICE_ORACLE, 'baseFeeScalar')).toBe(2269)
    expect(await read(GAS_PRICE_ORACLE, 'blobBaseFeeScalar')).toBe(1055762)
  })

  test('getL1Fee of an unsigned EIP-1559 transfer is not zero before the first block', async () => {
    expect(await read(GAS_PRICE_ORACLE, 'getL1Fee', [unsignedTransfer])).toBe(5_809_721_913n)
  })

  test('getOperatorFee is zero while the operator fee scalar and constant are', async () => {
    expect(await read(GAS_PRICE_ORACLE, 'getOperatorFee', [21_000n])).toBe(0n)
  })

  test('L1Block holds the L1 block number and Jovian’s default daFootprintGasScalar', async () => {
    expect(toFunctionSelector('daFootprintGasScalar()')).toBe('0xfe3d5710')
    expect(await read(L1_BLOCK, 'number')).toBe(22_438_497n)
    expect(await read(L1_BLOCK, 'daFootprintGasScalar')).toBe(400)
  })

  describe('setL1BlockValuesJovian', () => {
    // The packed L1-attributes calldata of Jovian (specs/protocol/jovian/l1-attributes.md), for the next L1 block.
    const calldata = encodePacked(
      ['bytes4', 'uint32', 'uint32', 'uint64', 'uint64', 'uint64', 'uint256', 'uint256', 'bytes32', 'bytes32', 'uint32', 'uint64', 'uint16'],
      [
        '0x3db6be2b',
        2269,
        1055762,
        1n,
        0x681c942bn,
        22_438_498n,
        0x5f629c02n,
        1n,
        `0x${'11'.repeat(32)}`,
        '0x0000000000000000000000005050f69a9786f081509234f1a7f4684b5e5b76c9',
        0,
        0n,
        400,
      ],
    )

    test('error: from any sender but the depositor it reverts with NotDepositor()', async () => {
      expect(await run(L1_BLOCK, calldata)).toEqual({ error: 'revert', returnData: '0x3cc50b45' })
      expect(await read(L1_BLOCK, 'number')).toBe(22_438_497n)
    })

    test('from the L1-attributes depositor it sets the next L1 block', async () => {
      expect(await run(L1_BLOCK, calldata, { from: L1_ATTRIBUTES_DEPOSITOR })).toEqual({ error: undefined, returnData: '0x' })
      expect(await read(L1_BLOCK, 'number')).toBe(22_438_498n)
    })
  })
})

describe('preinstalls and WETH', () => {
  test('Multicall3 answers getChainId() and aggregates a call to GasPriceOracle', async () => {
    expect(await read(MULTICALL3, 'getChainId')).toBe(1n)
    const call = { target: GAS_PRICE_ORACLE, allowFailure: false, callData: encodeFunctionData({ abi, functionName: 'isJovian' }) }
    expect(await read(MULTICALL3, 'aggregate3', [[call]])).toEqual([{ success: true, returnData: `0x${'0'.repeat(63)}1` }])
  })

  test('WETH: deposit() credits the sender', async () => {
    expect(await run(WETH, encodeFunctionData({ abi, functionName: 'deposit' }), { value: 12_345n })).toEqual({ error: undefined, returnData: '0x' })
    expect(await read(WETH, 'balanceOf', [caller])).toBe(12_345n)
  })
})
