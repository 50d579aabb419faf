/**
 * Message and transaction signing as MetaMask answers it: personal_sign, eth_signTypedData_v4, eth_sign (off unless
 * turned on) and eth_signTransaction, each under its own approval key; a browser origin the developer has not said
 * they trust waits for a click even under approve. Signatures are checked with viem, as a verifier elsewhere would.
 */
import { keccak256, parseTransaction, recoverAddress, recoverTransactionAddress, toHex, verifyMessage, verifyTypedData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DAPP, isSettled, originClient, pendingApprovals, setPolicy, startWallet } from './walletHelpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

/** An origin the node does not trust (startWallet trusts DAPP and OTHER_DAPP). */
const STRANGER = 'https://stranger.example'

const permit = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Permit: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'nonce', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
    ],
  },
  primaryType: 'Permit',
  domain: { name: 'Token', version: '1', chainId: 31337, verifyingContract: '0x00000000000000000000000000000000000000aa' },
  message: {
    owner: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
    spender: '0x00000000000000000000000000000000000000bb',
    value: '1000',
    nonce: '0',
    deadline: '4102444800',
  },
} as const

let t: TestChain
let owner: Hex

beforeAll(async () => {
  t = await startWallet()
  owner = t.accounts[0]!.address
})

afterAll(async () => {
  await t?.close()
})

describe('personal_sign', () => {
  it('signs text as its UTF-8 bytes and hex as the bytes it spells (EIP-191), as viem verifies', async () => {
    const text = 'Sign in to flashchain\nNonce: 42'
    const signature = await t.rpc<Hex>('personal_sign', [text, owner])
    expect(await verifyMessage({ address: owner, message: text, signature })).toBe(true)

    const bytes = toHex('raw bytes \u0000\u0001')
    const overBytes = await t.rpc<Hex>('personal_sign', [bytes, owner])
    expect(await verifyMessage({ address: owner, message: { raw: bytes }, signature: overBytes })).toBe(true)
    // The same as viem's own signature with the key: deterministic (RFC 6979).
    expect(overBytes).toBe(await t.accounts[0]!.signMessage({ message: { raw: bytes } }))
  })

  it('waits under manual with its own key and its params, and a rejection is 4001', async () => {
    await setPolicy(t, { default: 'approve', methods: { personal_sign: 'manual' } })
    try {
      const answer = t.send('personal_sign', ['hello', owner])
      const [approval] = await pendingApprovals(t, 1)
      expect(approval).toMatchObject({ method: 'personal_sign', key: 'personal_sign', params: ['hello', owner.toLowerCase()] })
      expect(await isSettled(answer)).toBe(false)
      await t.rpc('flashchain_resolveApproval', [approval!.id, 'reject'])
      expect((await answer).error?.code).toBe(4001)
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })

  it('an account that is not the wallet’s is 4100', async () => {
    expect((await t.rpcError('personal_sign', ['hello', '0x1111111111111111111111111111111111111111'])).code).toBe(4100)
  })
})

describe('eth_signTypedData_v4', () => {
  it('signs typed data given as JSON text or as an object, as viem verifies', async () => {
    for (const given of [JSON.stringify(permit), permit]) {
      const signature = await t.rpc<Hex>('eth_signTypedData_v4', [owner, given])
      const { EIP712Domain: _, ...types } = permit.types
      expect(
        await verifyTypedData({
          address: owner,
          domain: permit.domain,
          types,
          primaryType: 'Permit',
          message: { ...permit.message, value: 1000n, nonce: 0n, deadline: 4102444800n },
          signature,
        }),
      ).toBe(true)
    }
  })

  it('refuses a domain on another chain, as MetaMask does, and data that is not EIP-712', async () => {
    const otherChain = { ...permit, domain: { ...permit.domain, chainId: 1 } }
    const wrongChain = await t.rpcError('eth_signTypedData_v4', [owner, otherChain])
    expect(wrongChain).toMatchObject({ code: -32602, message: 'Provided chainId "1" must match the active chainId "31337"' })
    for (const bad of ['{not json', { ...permit, primaryType: 'Missing' }, { types: permit.types, primaryType: 'Permit', domain: permit.domain }]) {
      expect((await t.rpcError('eth_signTypedData_v4', [owner, bad])).code).toBe(-32602)
    }
    // A message that does not fit its types is refused before anyone is asked to sign it.
    const misfit = { ...permit, message: { ...permit.message, owner: 'not an address' } }
    await setPolicy(t, { default: 'approve', methods: { eth_signTypedData_v4: 'manual' } })
    try {
      expect((await t.rpcError('eth_signTypedData_v4', [owner, misfit])).code).toBe(-32602)
      expect(await t.rpc('flashchain_getPendingApprovals', [])).toEqual([])
    } finally {
      await setPolicy(t, { default: 'approve' })
    }
  })
})

describe('eth_sign', () => {
  it('is not there unless the node was started with it, as MetaMask answers', async () => {
    const hash = keccak256(toHex('anything'))
    expect(await t.rpcError('eth_sign', [owner, hash])).toMatchObject({
      code: -32601,
      message: 'the method eth_sign does not exist/is not available',
    })
  })

  it('with enableEthSign, signs the raw 32-byte hash, and only a 32-byte hash', async () => {
    const signing = await startWallet({ enableEthSign: true } as never)
    try {
      const hash = keccak256(toHex('a hash'))
      const signature = await signing.rpc<Hex>('eth_sign', [owner, hash])
      expect(await recoverAddress({ hash, signature })).toBe(owner)
      expect((await signing.rpcError('eth_sign', [owner, '0x1234'])).code).toBe(-32602)
    } finally {
      await signing.close()
    }
  })
})

describe('eth_signTransaction', () => {
  it('answers the raw transaction eth_sendTransaction would send, signed by the account, and sends nothing', async () => {
    const recipient = '0x00000000000000000000000000000000000c0ffe'
    const raw = await t.rpc<Hex>('eth_signTransaction', [{ from: owner, to: recipient, value: '0x5' }])
    const parsed = parseTransaction(raw)
    expect(parsed).toMatchObject({ type: 'eip1559', chainId: 31337, to: recipient, value: 5n })
    expect(parsed.nonce).toBe(Number(await t.rpc<Hex>('eth_getTransactionCount', [owner, 'pending'])))
    expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(owner)
    expect(await t.rpc('eth_getTransactionByHash', [keccak256(raw)])).toBeNull()
    // It is a real transaction: the chain takes it.
    expect(await t.rpc('eth_sendRawTransaction', [raw])).toBe(keccak256(raw))
  })
})

describe('from a browser origin', () => {
  it('a trusted origin with a grant signs under approve; one without a grant gets 4100', async () => {
    const dapp = originClient(t, DAPP)
    await dapp.rpc('eth_requestAccounts')
    const signature = await dapp.rpc<Hex>('personal_sign', ['from the dApp', owner])
    expect(await verifyMessage({ address: owner, message: 'from the dApp', signature })).toBe(true)
    expect((await originClient(t, STRANGER).rpcError('personal_sign', ['hello', owner])).code).toBe(4100)
  })

  it('an origin the developer has not said they trust waits for a click even under approve, for each signing method', async () => {
    const stranger = originClient(t, STRANGER)
    // Its grant too waits for a click.
    const granted = stranger.send('eth_requestAccounts')
    const [grant] = await pendingApprovals(t, 1)
    await t.rpc('flashchain_resolveApproval', [grant!.id, 'approve'])
    expect((await granted).result).toHaveLength(t.accounts.length)

    const requests: [string, unknown[]][] = [
      ['personal_sign', ['hello', owner]],
      ['eth_signTypedData_v4', [owner, permit]],
      ['eth_signTransaction', [{ from: owner, to: owner, value: '0x1' }]],
    ]
    for (const [method, params] of requests) {
      const answer = stranger.send(method, params)
      const [approval] = await pendingApprovals(t, 1)
      expect(approval).toMatchObject({ key: method, origin: STRANGER })
      expect(await isSettled(answer)).toBe(false)
      await t.rpc('flashchain_resolveApproval', [approval!.id, 'approve'])
      const response = await answer
      expect(response.error).toBeUndefined()
      expect(response.result).toMatch(/^0x[0-9a-f]+$/)
    }
  })
})

describe('chains', () => {
  it('wallet_switchEthereumChain: its own chain is null, any other 4902 as MetaMask says it', async () => {
    expect(await t.rpc('wallet_switchEthereumChain', [{ chainId: '0x7a69' }])).toBeNull()
    expect(await t.rpcError('wallet_switchEthereumChain', [{ chainId: '0x1' }])).toMatchObject({
      code: 4902,
      message: 'Unrecognized chain ID "0x1". Try adding the chain using wallet_addEthereumChain first.',
    })
    expect((await t.rpcError('wallet_switchEthereumChain', [{ chainId: '31337' }])).code).toBe(-32602)
  })

  it('wallet_addEthereumChain: its own chain is null; another is refused with 4200, saying the wallet serves one chain', async () => {
    expect(await t.rpc('wallet_addEthereumChain', [{ chainId: '0x7a69', chainName: 'flashchain' }])).toBeNull()
    const refusal = await t.rpcError('wallet_addEthereumChain', [{ chainId: '0x2105', chainName: 'Base', rpcUrls: ['https://mainnet.base.org'] }])
    expect(refusal.code).toBe(4200)
    expect(refusal.message).toContain('serves one chain, 31337')
  })
})
