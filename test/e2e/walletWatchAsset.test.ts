/**
 * wallet_watchAsset (EIP-747) end to end: every invalid parameter (-32602 naming the field), the on-chain checks
 * against the pending state (no code; symbol()/decimals() that disagree), the approval policy (4001), upserts,
 * viem's own watchAsset action, flashchain_getWatchedAssets, and persistence across a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createWalletClient, getAddress, http } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { deploy } from './helpers.ts'
import { MESSAGES, compileToken, deployAll, namesField, ownerClient, setPolicy, startWallet, tempDataDir } from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'
import type { Client, WatchedAsset } from './walletHelpers.ts'

let t: TestChain
let owner: Client
/** TKN, 18 decimals. */
let token: Hex
/** USDX, 6 decimals. */
let usdx: Hex
/** A contract with code but neither symbol() nor decimals(). */
let store: Hex

const NO_CODE = '0x2222222222222222222222222222222222222222'

beforeAll(async () => {
  t = await startWallet()
  owner = ownerClient(t)
  const Token = compileToken()
  ;[token, usdx, store] = await deployAll(t, [
    { contract: Token, args: ['TKN', 18] },
    { contract: Token, args: ['USDX', 6] },
    { contract: Store, args: [0n] },
  ])
})

afterAll(async () => {
  await t?.close()
})

type Options = { address?: unknown; symbol?: unknown; decimals?: unknown; image?: unknown }
const watch = (options: Options, type: unknown = 'ERC20') => owner.send('wallet_watchAsset', { type, options })
const watched = (address?: string) => t.rpc<WatchedAsset[]>('flashchain_getWatchedAssets', address === undefined ? [] : [address])
const summary = (assets: WatchedAsset[]) =>
  assets.map((asset) => ({ address: asset.address.toLowerCase(), symbol: asset.symbol, decimals: asset.decimals, image: asset.image }))

/** The error of a watch request that must fail with -32602 naming `field`. */
async function invalid(options: Options, field: string, type: unknown = 'ERC20'): Promise<string> {
  const response = await watch(options, type)
  expect(response.error, `${JSON.stringify({ type, options })} succeeded`).toBeDefined()
  expect(response.error!.code, JSON.stringify(options)).toBe(-32602)
  expect(namesField(response.error!.message, field), `"${response.error!.message}" does not name ${field}`).toBe(true)
  return response.error!.message
}

/** The address with the case of its first letter flipped: mixed case with a wrong EIP-55 checksum. */
function badChecksum(address: string): string {
  const checksummed = getAddress(address)
  const index = checksummed.slice(2).search(/[a-fA-F]/) + 2
  const char = checksummed[index]!
  const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()
  return checksummed.slice(0, index) + flipped + checksummed.slice(index + 1)
}

describe('wallet_watchAsset: invalid parameters (-32602, naming the field)', () => {
  it('a type other than ERC20 → "Asset of type X not supported"', async () => {
    for (const type of ['ERC721', 'ERC1155', 'erc20']) {
      const response = await watch({ address: token, symbol: 'TKN', decimals: 18 }, type)
      expect(response.error?.code, type).toBe(-32602)
      expect(response.error?.message).toContain(`Asset of type ${type} not supported`)
    }
  })

  it('a missing type or options', async () => {
    let response = await owner.send('wallet_watchAsset', { options: { address: token, symbol: 'TKN', decimals: 18 } })
    expect(response.error?.code).toBe(-32602)
    expect(namesField(response.error!.message, 'type'), response.error!.message).toBe(true)
    response = await owner.send('wallet_watchAsset', { type: 'ERC20' })
    expect(response.error?.code).toBe(-32602)
    expect(namesField(response.error!.message, 'options'), response.error!.message).toBe(true)
  })

  it('an address that is not 42 hexadecimal characters', async () => {
    for (const address of ['0x1234', `${token}00`, token.slice(2), `0x${'z'.repeat(40)}`, 1234, undefined]) {
      await invalid({ address, symbol: 'TKN', decimals: 18 }, 'address')
    }
  })

  it('a mixed-case address with a wrong EIP-55 checksum', async () => {
    const message = await invalid({ address: badChecksum(token), symbol: 'TKN', decimals: 18 }, 'address')
    expect(message).toMatch(/checksum/i)
  })

  it('a symbol that is empty, longer than 11 characters, or not a string', async () => {
    for (const symbol of ['', 'ABCDEFGHIJKL', 'A_VERY_LONG_SYMBOL', 42, undefined]) {
      await invalid({ address: token, symbol, decimals: 18 }, 'symbol')
    }
  })

  it('decimals that are not an integer from 0 to 36', async () => {
    for (const decimals of [-1, 37, 255, 1.5, '18', null, undefined]) {
      await invalid({ address: token, symbol: 'TKN', decimals }, 'decimals')
    }
  })

  it('an image that is not an http(s) or data: URL', async () => {
    for (const image of ['ftp://example.com/t.png', 'not a url', 'javascript:alert(1)', 'file:///etc/passwd', '//example.com/t.png', 42]) {
      await invalid({ address: token, symbol: 'TKN', decimals: 18, image }, 'image')
    }
  })

  it('nothing invalid was added', async () => {
    expect(await watched()).toEqual([])
  })
})

describe('wallet_watchAsset: on-chain checks (pending state)', () => {
  it('no contract code at the address → -32602', async () => {
    const response = await watch({ address: NO_CODE, symbol: 'TKN', decimals: 18 })
    expect(response.error?.code).toBe(-32602)
  })

  it('symbol() answering differently → -32602 with both values in the message', async () => {
    const response = await watch({ address: token, symbol: 'FOO', decimals: 18 })
    expect(response.error?.code).toBe(-32602)
    expect(response.error?.message).toContain('TKN')
    expect(response.error?.message).toContain('FOO')
  })

  it('decimals() answering differently → -32602 with both values in the message', async () => {
    const response = await watch({ address: usdx, symbol: 'USDX', decimals: 18 })
    expect(response.error?.code).toBe(-32602)
    expect(response.error?.message).toMatch(/\b6\b/)
    expect(response.error?.message).toMatch(/\b18\b/)
  })

  it('a token deployed in a pre-confirmed (not sealed) block can be watched', async () => {
    const { address } = await deploy(t, compileToken(), ['PRE', 2], 9)
    expect((await watch({ address, symbol: 'PRE', decimals: 2 })).error?.code).toBe(-32602) // only in the pool
    await t.preconfirm()
    expect(await t.rpc('eth_getCode', [address, 'latest'])).toBe('0x')
    const response = await watch({ address, symbol: 'PRE', decimals: 2 })
    expect(response.error).toBeUndefined()
    expect(response.result).toBe(true)
    await t.mine()
  })

  it('a contract without symbol() / decimals() is accepted as requested (nothing answers to differ), at the limits 11 characters and 36 decimals', async () => {
    const response = await watch({ address: store, symbol: 'ELEVENCHARS', decimals: 36 })
    expect(response.error).toBeUndefined()
    expect(response.result).toBe(true)
  })
})

describe('wallet_watchAsset: success, upsert, list', () => {
  it("a valid request answers true and the token is in the first account's list", async () => {
    const response = await watch({ address: getAddress(token), symbol: 'TKN', decimals: 18 })
    expect(response.error).toBeUndefined()
    expect(response.result).toBe(true)
    const list = await watched()
    const entry = list.find((asset) => asset.address.toLowerCase() === token)
    expect(entry).toMatchObject({ symbol: 'TKN', decimals: 18 })
    expect(await watched(t.accounts[0]!.address)).toEqual(list)
  })

  it('an array holding the one object is accepted as well', async () => {
    const response = await owner.send('wallet_watchAsset', [
      { type: 'ERC20', options: { address: usdx, symbol: 'USDX', decimals: 6, image: 'https://example.com/usdx.png' } },
    ])
    expect(response.error).toBeUndefined()
    expect(response.result).toBe(true)
    expect(summary(await watched()).find((asset) => asset.address === usdx)).toEqual({
      address: usdx,
      symbol: 'USDX',
      decimals: 6,
      image: 'https://example.com/usdx.png',
    })
  })

  it('images: http, https and data: URLs are accepted', async () => {
    for (const image of ['http://example.com/t.png', 'data:image/png;base64,iVBORw0KGgo=', 'https://example.com/t.png']) {
      const response = await watch({ address: token, symbol: 'TKN', decimals: 18, image })
      expect(response.error, image).toBeUndefined()
      expect(response.result).toBe(true)
    }
  })

  it('a repeat is an upsert: true again, one entry, updated; the address in any valid case is the same token', async () => {
    const count = (await watched()).length
    expect((await watch({ address: token, symbol: 'TKN', decimals: 18, image: 'https://example.com/new.png' })).result).toBe(true)
    const upper = `0x${token.slice(2).toUpperCase()}`
    expect((await watch({ address: upper, symbol: 'TKN', decimals: 18, image: 'https://example.com/newer.png' })).result).toBe(true)
    const list = await watched()
    expect(list).toHaveLength(count)
    const entries = summary(list).filter((asset) => asset.address === token)
    expect(entries).toEqual([{ address: token, symbol: 'TKN', decimals: 18, image: 'https://example.com/newer.png' }])
  })

  it('flashchain_getWatchedAssets for another account: its own list (empty here)', async () => {
    expect(await watched(t.accounts[3]!.address)).toEqual([])
  })

  it("viem's watchAsset action works unchanged", async () => {
    const client = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: t.accounts[0]!.address })
    const { address } = await deploy(t, compileToken(), ['VIEM', 8], 9)
    await t.mine()
    expect(await client.watchAsset({ type: 'ERC20', options: { address, symbol: 'VIEM', decimals: 8 } })).toBe(true)
    expect(summary(await watched()).some((asset) => asset.address === address && asset.symbol === 'VIEM' && asset.decimals === 8)).toBe(true)
    // viem surfaces a wallet error with its code.
    await expect(client.watchAsset({ type: 'ERC20', options: { address, symbol: 'NOPE', decimals: 8 } })).rejects.toMatchObject({ code: -32602 })
  })

  it('approval rejected → 4001 "User rejected the request", and the list is unchanged', async () => {
    const before = await watched()
    const { address } = await deploy(t, compileToken(), ['REJ', 1], 9)
    await t.mine()
    await setPolicy(t, { default: 'approve', methods: { wallet_watchAsset: 'reject' } })
    try {
      const response = await watch({ address, symbol: 'REJ', decimals: 1 })
      expect(response.error?.code).toBe(4001)
      expect(response.error?.message).toContain(MESSAGES.rejected)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
    expect(await watched()).toEqual(before)
  })

  it('validation comes before approval: an invalid request under a reject policy is still -32602', async () => {
    await setPolicy(t, { default: 'reject' })
    try {
      expect((await watch({ address: token, symbol: '', decimals: 18 })).error?.code).toBe(-32602)
      expect((await watch({ address: NO_CODE, symbol: 'TKN', decimals: 18 })).error?.code).toBe(-32602)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })
})

describe('wallet_watchAsset: the list persists across a restart', () => {
  const data = tempDataDir('watch-asset')

  afterAll(() => {
    data.remove()
  })

  it('close and reopen the same data dir: the token is still listed, and an upsert still keeps one entry', async () => {
    let chain = await startWallet({ dataDir: data.dir })
    let address: Hex
    try {
      ;[address] = await deployAll(chain, [{ contract: compileToken(), args: ['KEEP', 4] }])
      expect(
        (
          await ownerClient(chain).send('wallet_watchAsset', {
            type: 'ERC20',
            options: { address, symbol: 'KEEP', decimals: 4, image: 'https://example.com/keep.png' },
          })
        ).result,
      ).toBe(true)
    } finally {
      await chain.close()
    }
    chain = await startWallet({ dataDir: data.dir })
    try {
      const list = await chain.rpc<WatchedAsset[]>('flashchain_getWatchedAssets', [])
      expect(summary(list)).toEqual([{ address: address!, symbol: 'KEEP', decimals: 4, image: 'https://example.com/keep.png' }])
      expect(
        (await ownerClient(chain).send('wallet_watchAsset', { type: 'ERC20', options: { address: address!, symbol: 'KEEP', decimals: 4 } })).result,
      ).toBe(true)
      expect(await chain.rpc<WatchedAsset[]>('flashchain_getWatchedAssets', [])).toHaveLength(1)
    } finally {
      await chain.close()
    }
  })
})
