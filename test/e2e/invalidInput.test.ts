// Ordinary bad input gets -32602 (or geth's error), never -32603: the cases a probe campaign found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from './helpers.ts'
import { CHAIN_ID } from './walletHelpers.ts'

import type { TestChain } from './helpers.ts'

let t: TestChain

beforeAll(async () => {
  t = await startChain()
})

afterAll(async () => {
  await t?.close()
})

async function send(body: string) {
  const response = await fetch(t.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
  return (await response.json()) as { error?: { code: number; message: string } }
}

const authorization = { chainId: CHAIN_ID, address: `0x${'22'.repeat(20)}`, nonce: '0x0', yParity: '0x0', r: '0x1', s: '0x1' }
const badFields: [string, Record<string, unknown>, RegExp][] = [
  ['type 0x4 without authorizationList', { type: '0x4' }, /empty auth list/],
  ['type 0x3 without blobs', { type: '0x3' }, /missing blob hashes/],
  ...['0x7e', '0xff', '0x100', '0xffffffffffffffff', '0x10000000000000000', `0x${'33'.repeat(20)}`].map(
    (type): [string, Record<string, unknown>, RegExp] => [`type ${type}`, { type }, /is not supported: want 0x0 to 0x4/],
  ),
  ['authorizationList: []', { authorizationList: [] }, /empty auth list/],
  ['an authorization with yParity 0x123', { authorizationList: [{ ...authorization, yParity: '0x123' }] }, /yParity: hex number > 8 bits/],
  ['10,000 blobVersionedHashes', { blobVersionedHashes: Array.from({ length: 10_000 }, () => `0x01${'00'.repeat(31)}`) }, /blob gas/],
  ['nonce 0xffffffffffffffff', { nonce: '0xffffffffffffffff' }, /below 2\^64 - 1/],
]

describe('the tx object of eth_call, eth_estimateGas and eth_sendTransaction', () => {
  for (const method of ['eth_call', 'eth_estimateGas', 'eth_sendTransaction']) {
    it.each(badFields)(`${method}: %s is -32602`, async (_name, fields, message) => {
      const tx = { from: t.accounts[0]!.address, to: t.accounts[1]!.address, ...fields }
      const error = await t.rpcError(method, method === 'eth_sendTransaction' ? [tx] : [tx, 'latest'])
      expect(error.code).toBe(-32602)
      expect(error.message).toMatch(message)
    })
  }

  it('nonce 0xfffffffffffffffe: a call runs; the wallet refuses to sign it with -32602', async () => {
    const tx = { from: t.accounts[0]!.address, to: t.accounts[1]!.address, nonce: '0xfffffffffffffffe' }
    expect(await t.rpc('eth_call', [tx, 'latest'])).toBe('0x')
    expect((await t.rpcError('eth_sendTransaction', [tx])).code).toBe(-32602)
  })
})

describe('params no schema should see', () => {
  it('a 100,000-deep value inside an optional capability is -32602, and the node answers the next request', async () => {
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`
    const from = t.accounts[0]!.address
    const body = `{"jsonrpc":"2.0","id":1,"method":"wallet_sendCalls","params":[{"version":"2.0.0","chainId":"${CHAIN_ID}","from":"${from}","atomicRequired":false,"calls":[{"to":"${from}"}],"capabilities":{"deep":{"optional":true,"value":${deep}}}}]}`
    const answer = await send(body)
    expect(answer.error?.code).toBe(-32602)
    expect(answer.error?.message).toMatch(/nested more than 64 levels deep/)
    expect(await t.rpc('eth_chainId')).toBe(CHAIN_ID)
  })

  it.each([
    ['state overrides', `["{to}","latest",{"__proto__":{"balance":"0x1"}}]`, 'eth_call'],
    ['a state override entry', `["{to}","latest",{"{addr}":{"balance":"0x1","__proto__":{}}}]`, 'eth_call'],
    ['the approval policy', `[{"default":"approve","methods":{"__proto__":"reject"}}]`, 'flashchain_setApprovalPolicy'],
  ])('a __proto__ key in %s is refused like any unknown key', async (_where, params, method) => {
    const addr = t.accounts[0]!.address
    const text = params.replaceAll('"{to}"', JSON.stringify({ to: addr })).replaceAll('{addr}', addr)
    const answer = await send(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":${text}}`)
    expect(answer.error?.code).toBe(-32602)
    expect(answer.error?.message).toMatch(/unrecognized key: "__proto__"/)
  })

  it('a __proto__ capability is refused as any capability the wallet does not support (5700), unless optional', async () => {
    const from = t.accounts[0]!.address
    const request = (capabilities: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"wallet_sendCalls","params":[{"version":"2.0.0","chainId":"${CHAIN_ID}","from":"${from}","atomicRequired":false,"calls":[{"to":"${from}"}],"capabilities":${capabilities}}]}`
    const refused = await send(request('{"__proto__":{"x":1}}'))
    expect(refused.error).toMatchObject({ code: 5700, message: expect.stringMatching(/__proto__/) })
    const optional = (await send(request('{"__proto__":{"optional":true}}'))) as { result?: unknown; error?: unknown }
    expect(optional.error).toBeUndefined()
  })
})
