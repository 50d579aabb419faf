import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import * as RLP from '@ethereumjs/rlp'
import { KECCAK256_RLP, SHA256_NULL, bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { GENESIS_GAS_LIMIT, INITIAL_BASE_FEE, parseGenesisJsonText, parseGethGenesis } from './genesis.ts'
import { createGenesis } from '../state/genesis.ts'

import type { BlockHeader, BlockHeaderBytes } from '@ethereumjs/block'

const fixtures = join(import.meta.dirname, '../../../test/conformance/execution-apis/tests')
const genesisText = readFileSync(join(fixtures, 'genesis.json'), 'utf8')
const chainRlp = new Uint8Array(readFileSync(join(fixtures, 'chain.rlp')))

/** The blocks of chain.rlp (back-to-back RLP), each as [header, transactions, uncles, withdrawals?]. */
function decodeChain(): Uint8Array[][][] {
  const blocks: Uint8Array[][][] = []
  let rest: Uint8Array = chainRlp
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true)
    blocks.push(data as unknown as Uint8Array[][])
    rest = remainder
  }
  return blocks
}

const zero32 = new Uint8Array(32)

describe('parseGethGenesis on the execution-apis genesis.json', () => {
  const spec = parseGethGenesis(JSON.parse(genesisText))

  it('keeps the chain id exact (it is below 2^53, so JSON.parse is exact too)', () => {
    expect(3503995874084926 < Number.MAX_SAFE_INTEGER).toBe(true)
    expect(spec.common.chainId()).toBe(3503995874084926n)
    expect(parseGethGenesis(parseGenesisJsonText(genesisText)).common.chainId()).toBe(3503995874084926n)
    expect(spec.common.chainName()).toBe('flashchain')
  })

  it('knows the fork schedule by block and timestamp', () => {
    const at = (blockNumber: bigint, timestamp: bigint) => spec.common.getHardforkBy({ blockNumber, timestamp })
    expect(spec.common.hardfork()).toBe('homestead')
    expect(at(0n, 0n)).toBe('homestead')
    expect(at(3n, 30n)).toBe('tangerineWhistle')
    expect(at(6n, 60n)).toBe('spuriousDragon')
    expect(at(26n, 260n)).toBe('berlin')
    expect(at(27n, 270n)).toBe('london')
    expect(at(35n, 350n)).toBe('grayGlacier')
    // ethereumjs puts Paris and MergeNetsplitBlock both at 36 and reports the later name.
    expect(at(36n, 360n)).toBe('mergeNetsplitBlock')
    expect(at(36n, 389n)).toBe('mergeNetsplitBlock')
    expect(at(36n, 400n)).toBe('shanghai')
    expect(at(39n, 390n)).toBe('shanghai')
    expect(at(42n, 420n)).toBe('cancun')
    expect(at(45n, 450n)).toBe('prague')
    expect(at(48n, 480n)).toBe('osaka')
    expect(at(51n, 510n)).toBe('bpo1')
    expect(at(54n, 540n)).toBe('bpo2')
    expect(spec.common.hardforkBlock('paris')).toBe(36n)
    expect(spec.common.hardforkTimestamp('bpo2')).toBe(540n)
    // setHardforkBy on a copy leaves the spec's Common at genesis.
    const copy = spec.common.copy()
    expect(copy.setHardforkBy({ blockNumber: 48n, timestamp: 480n })).toBe('osaka')
    expect(copy.isActivatedEIP(7702)).toBe(true)
    expect(copy.isActivatedEIP(7825)).toBe(true)
    expect(spec.common.hardfork()).toBe('homestead')
  })

  it('reports the blob schedule of each fork, including bpo1/bpo2', () => {
    const schedule = (hardfork: string) => {
      const common = spec.common.copy()
      common.setHardfork(hardfork)
      return common.getBlobGasSchedule()
    }
    expect(schedule('cancun')).toEqual({
      targetBlobGasPerBlock: 3n * 131072n,
      maxBlobGasPerBlock: 6n * 131072n,
      blobGasPriceUpdateFraction: 3338477n,
    })
    expect(schedule('osaka')).toEqual({
      targetBlobGasPerBlock: 6n * 131072n,
      maxBlobGasPerBlock: 9n * 131072n,
      blobGasPriceUpdateFraction: 5007716n,
    })
    expect(schedule('bpo1')).toEqual({
      targetBlobGasPerBlock: 10n * 131072n,
      maxBlobGasPerBlock: 15n * 131072n,
      blobGasPriceUpdateFraction: 8346193n,
    })
    expect(schedule('bpo2')).toEqual({
      targetBlobGasPerBlock: 14n * 131072n,
      maxBlobGasPerBlock: 21n * 131072n,
      blobGasPriceUpdateFraction: 11684671n,
    })
    const bpo1 = spec.common.copy()
    bpo1.setHardfork('bpo1')
    expect([bpo1.param('target'), bpo1.param('max'), bpo1.param('blobGasPriceUpdateFraction')]).toEqual([10n, 15n, 8346193n])
  })

  it('builds the homestead genesis header without post-London fields', () => {
    expect(spec.header).toEqual({
      parentHash: zero32,
      coinbase: new Uint8Array(20),
      difficulty: 0x20000n,
      number: 0n,
      gasLimit: 0x5f5e100n,
      gasUsed: 0n,
      timestamp: 0n,
      extraData: new TextEncoder().encode('hivechain'),
      mixHash: zero32,
      nonce: new Uint8Array(8),
    })
  })

  it('parses the alloc', () => {
    expect(spec.alloc.size).toBe(27)
    const withdrawals = spec.alloc.get('0x00000961ef480eb55e80d19ad83579a64c007002')!
    expect(withdrawals.balance).toBe(1n)
    expect(withdrawals.nonce).toBe(0n)
    expect(withdrawals.code.length).toBe(504)
    expect(withdrawals.storage.size).toBe(0)
    const funded = spec.alloc.get('0x0c2c51a0990aee1d73c1228de158688341557508')!
    expect(funded.balance).toBe(0xc097ce7bc90715b34b9f1000000000n)
    expect(funded.code.length).toBe(0)
    const withStorage = spec.alloc.get('0x8bebc8ba651aee624937e7d897853ac30c95a067')!
    expect(withStorage.nonce).toBe(1n)
    expect(withStorage.storage.size).toBe(3)
    for (const [slot, value] of withStorage.storage) {
      expect(slot).toMatch(/^0x[0-9a-f]{64}$/)
      expect(value.length).toBeGreaterThan(0)
      expect(value[0]).not.toBe(0)
    }
  })

  it('reproduces the genesis state root and hash (block 1 parentHash)', async () => {
    const { block } = await createGenesis(spec)
    expect(bytesToHex(block.header.stateRoot)).toBe('0xdc43f460541a253c0f64b6943ef83fa3bd601699a255622f088d46f7fde359fc')
    const block1Header = decodeChain()[0][0]
    expect(bytesToHex(block1Header[0])).toBe('0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99')
    expect(bytesToHex(block.hash())).toBe(bytesToHex(block1Header[0]))
    expect(block.serialize().length).toBe(0x205) // eth_getBlockByNumber(0).size
  })

  it('lets ethereumjs read every header of chain.rlp, with blob gas following the bpo schedule', async () => {
    const { block: genesis } = await createGenesis(spec)
    const headers: BlockHeader[] = [genesis.header]
    for (const [values] of decodeChain()) {
      headers.push(createBlockHeaderFromBytesArray(values as unknown as BlockHeaderBytes, { common: spec.common, setHardfork: true }))
    }
    expect(headers.length).toBe(55)
    for (let n = 1; n < headers.length; n++) {
      const [parent, child] = [headers[n - 1], headers[n]]
      expect(child.number).toBe(BigInt(n))
      expect(bytesToHex(child.parentHash)).toBe(bytesToHex(parent.hash()))
      if (child.common.isActivatedEIP(1559) && n > 27) expect(child.baseFeePerGas).toBe(parent.calcNextBaseFee())
      if (child.common.isActivatedEIP(4844) && parent.common.isActivatedEIP(4844)) {
        expect(child.excessBlobGas).toBe(parent.calcNextExcessBlobGas(child.common))
      }
    }
    expect(headers[51].common.hardfork()).toBe('bpo1')
    expect(headers[54].common.hardfork()).toBe('bpo2')
    const head = JSON.parse(readFileSync(join(fixtures, 'headfcu.json'), 'utf8')).params[0].headBlockHash
    expect(bytesToHex(headers[54].hash())).toBe(head)
  })
})

describe('parseGethGenesis on inline genesis objects', () => {
  it('rejects skipped forks, as geth does: Osaka alone is not a schedule', () => {
    expect(() => parseGethGenesis({ config: { chainId: 1337, osakaTime: 0 }, alloc: {} })).toThrow(
      new Error('invalid genesis: config.osakaTime is set but config.shanghaiTime is not (forks cannot be skipped)'),
    )
    expect(() => parseGethGenesis({ config: { chainId: 1337, shanghaiTime: 0, cancunTime: 0, pragueTime: 0, osakaTime: 0 } })).toThrow(
      new Error('invalid genesis: config.londonBlock is required when timestamp forks are set'),
    )
    expect(() => parseGethGenesis({ config: { chainId: 1, homesteadBlock: 0, byzantiumBlock: 0 } })).toThrow(
      new Error('invalid genesis: config.byzantiumBlock is set but config.eip150Block is not (forks cannot be skipped)'),
    )
    expect(() => parseGethGenesis({ config: { chainId: 1, ...allBlocksAt0(), berlinBlock: 5, londonBlock: 4 } })).toThrow(
      new Error('invalid genesis: config.londonBlock (4) is before config.berlinBlock (5)'),
    )
  })

  it('builds a minimal Osaka-at-genesis chain with geth defaults for the header', async () => {
    const spec = parseGethGenesis({
      config: { chainId: 1337, ...allBlocksAt0(), shanghaiTime: 0, cancunTime: 0, pragueTime: 0, osakaTime: 0 },
      alloc: { '0X00000000000000000000000000000000000000AA': { balance: '1000' } },
    })
    expect(spec.common.hardfork()).toBe('osaka')
    expect(spec.common.chainId()).toBe(1337n)
    expect(spec.common.hardforkBlock('paris')).toBe(0n)
    expect(spec.header).toEqual({
      parentHash: zero32,
      coinbase: new Uint8Array(20),
      difficulty: 0n, // no ethash section: proof of stake from genesis
      number: 0n,
      gasLimit: GENESIS_GAS_LIMIT,
      gasUsed: 0n,
      timestamp: 0n,
      extraData: new Uint8Array(),
      mixHash: zero32,
      nonce: new Uint8Array(8),
      baseFeePerGas: INITIAL_BASE_FEE,
      withdrawalsRoot: KECCAK256_RLP,
      blobGasUsed: 0n,
      excessBlobGas: 0n,
      parentBeaconBlockRoot: zero32,
      requestsHash: SHA256_NULL,
    })
    expect(bytesToHex(SHA256_NULL)).toBe('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect([...spec.alloc.keys()]).toEqual(['0x00000000000000000000000000000000000000aa'])
    expect(spec.alloc.get('0x00000000000000000000000000000000000000aa')!.balance).toBe(1000n)
    const { block } = await createGenesis(spec)
    expect(block.common.hardfork()).toBe('osaka')
    expect(block.header.requestsHash).toEqual(SHA256_NULL)
    // Default Osaka blob schedule (no blobSchedule given).
    expect(spec.common.getBlobGasSchedule().maxBlobGasPerBlock).toBe(9n * 131072n)
  })

  it('takes given base fee and blob gas, and a merge implied by terminalTotalDifficulty 0', () => {
    const spec = parseGethGenesis({
      config: { chainId: '0x539', ...allBlocksAt0(), terminalTotalDifficulty: 0, shanghaiTime: 0, cancunTime: 0 },
      baseFeePerGas: '0x7',
      excessBlobGas: '0x20000',
      blobGasUsed: 0,
      gasLimit: 30_000_000,
      timestamp: '1700000000',
      nonce: '0x42',
      difficulty: '0x0',
    })
    expect(spec.common.chainId()).toBe(1337n)
    expect(spec.common.hardfork()).toBe('cancun')
    expect(spec.header.baseFeePerGas).toBe(7n)
    expect(spec.header.excessBlobGas).toBe(0x20000n)
    expect(spec.header.gasLimit).toBe(30_000_000n)
    expect(spec.header.timestamp).toBe(1_700_000_000n)
    expect(spec.header.nonce).toEqual(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0x42))
    expect(spec.header.requestsHash).toBe(undefined)
  })

  it('accepts a mainnet-sized terminalTotalDifficulty from a plain JSON.parse', () => {
    const text = `{"config":{"chainId":1,${JSON.stringify(allBlocksAt0()).slice(1, -1)},"terminalTotalDifficulty":58750000000000000000000}}`
    const spec = parseGethGenesis(JSON.parse(text))
    expect(spec.common.hardfork()).toBe('london')
    expect(spec.common.hardforkBlock('paris')).toBe(null)
  })

  it('normalizes alloc keys, numbers and storage', () => {
    const spec = parseGethGenesis({
      config: { chainId: 5, ...allBlocksAt0() },
      alloc: {
        '00000000000000000000000000000000000000Bb': {
          balance: 12345,
          nonce: '0x2',
          code: '6001',
          storage: { '0x1': '0x00ff', '0X02': '0x0', [`0x${'ab'.repeat(32)}`]: `0x${'00'.repeat(31)}01` },
        },
      },
    })
    const account = spec.alloc.get('0x00000000000000000000000000000000000000bb')!
    expect(account.balance).toBe(12345n)
    expect(account.nonce).toBe(2n)
    expect(account.code).toEqual(Uint8Array.of(0x60, 0x01))
    expect([...account.storage]).toEqual([
      [`0x${'00'.repeat(31)}01`, Uint8Array.of(0xff)],
      [`0x${'ab'.repeat(32)}`, Uint8Array.of(1)],
    ])
    expect(spec.header.baseFeePerGas).toBe(INITIAL_BASE_FEE) // London at 0
    expect(spec.header.withdrawalsRoot).toBe(undefined)
  })

  it('keeps chain ids above 2^53 exact through parseGenesisJsonText', () => {
    const text = `{"config":{"chainId":18446744073709551557,${JSON.stringify(allBlocksAt0()).slice(1, -1)}},"alloc":{"0x${'11'.repeat(20)}":{"balance":115792089237316195423570985008687907853269984665640564039457584007913129639935}}}`
    const spec = parseGethGenesis(parseGenesisJsonText(text))
    expect(spec.common.chainId()).toBe(18446744073709551557n)
    expect(spec.alloc.get(`0x${'11'.repeat(20)}`)!.balance).toBe(2n ** 256n - 1n)
    expect(() => parseGethGenesis(JSON.parse(text))).toThrow(
      new Error(
        'invalid genesis: config.chainId (18446744073709552000) is above 2^53 and lost precision in JSON.parse; write it as a string or parse the file with parseGenesisJsonText',
      ),
    )
    expect(parseGethGenesis({ config: { chainId: '18446744073709551557' } }).common.chainId()).toBe(18446744073709551557n)
  })

  it('throws clear errors naming the field', () => {
    expect(() => parseGethGenesis({ config: {}, alloc: {} })).toThrow(new Error('invalid genesis: config.chainId is required'))
    expect(() => parseGethGenesis({ alloc: {} })).toThrow(new Error('invalid genesis: config is required'))
    expect(() => parseGethGenesis([])).toThrow(new Error('invalid genesis: expected a JSON object, got []'))
    const withAlloc = (alloc: unknown) => () => parseGethGenesis({ config: { chainId: 1 }, alloc })
    expect(withAlloc({ [`0x${'aa'.repeat(20)}`]: { balance: '12abc' } })).toThrow(
      new Error(`invalid genesis: alloc[0x${'aa'.repeat(20)}].balance must be a hex or decimal number, got "12abc"`),
    )
    expect(withAlloc({ [`0x${'aa'.repeat(20)}`]: { balance: -1 } })).toThrow(
      new Error(`invalid genesis: alloc[0x${'aa'.repeat(20)}].balance must be a non-negative integer, got -1`),
    )
    expect(withAlloc({ [`0x${'aa'.repeat(20)}`]: {} })).toThrow(new Error(`invalid genesis: alloc[0x${'aa'.repeat(20)}].balance is required`))
    expect(withAlloc({ '0x1234': { balance: '0x1' } })).toThrow(new Error('invalid genesis: alloc key "0x1234" is not a 20-byte hex address'))
    expect(withAlloc({ [`0x${'aa'.repeat(20)}`]: { balance: '0x1' }, [`0x${'AA'.repeat(20)}`]: { balance: '0x2' } })).toThrow(
      new Error(`invalid genesis: alloc[0x${'aa'.repeat(20)}] is given twice`),
    )
    expect(withAlloc({ [`0x${'aa'.repeat(20)}`]: { balance: '0x1', code: '0x123' } })).toThrow(
      new Error(`invalid genesis: alloc[0x${'aa'.repeat(20)}].code must be hex bytes, got "0x123"`),
    )
    expect(() => parseGethGenesis({ config: { chainId: 1 }, mixHash: '0x00' })).toThrow(new Error('invalid genesis: mixHash must be 32 bytes, got 1'))
    expect(() => parseGethGenesis({ config: { chainId: 1, ...allBlocksAt0(), blobSchedule: { cancun: { target: 3, max: 6 } } } })).toThrow(
      new Error('invalid genesis: config.blobSchedule.cancun.baseFeeUpdateFraction must be a hex or decimal number, got undefined'),
    )
    expect(() =>
      parseGethGenesis({ config: { chainId: 1, ...allBlocksAt0(), blobSchedule: { nosuchfork: { target: 1, max: 2, baseFeeUpdateFraction: 3 } } } }),
    ).toThrow(new Error('invalid genesis: unknown hardfork=nosuchfork specified in blobSchedule'))
    expect(() => parseGethGenesis({ config: { chainId: 1, homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 1 } })).toThrow(
      new Error('invalid genesis: config.eip155Block and config.eip158Block must be equal (both are Spurious Dragon)'),
    )
    expect(() => parseGethGenesis({ config: { chainId: 1 }, baseFeePerGas: '0x1' })).toThrow(
      new Error('invalid genesis: baseFeePerGas is set but London is not active at genesis'),
    )
    expect(() => parseGethGenesis({ config: { chainId: 1 }, number: '0x1' })).toThrow(new Error('invalid genesis: number must be 0, got 1'))
  })
})

function allBlocksAt0() {
  return {
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
  }
}
