// Who may call the test-control methods that only read: the owner, as for every anvil_*, hardhat_* and evm_* method,
// except anvil_nodeInfo, which is public as on anvil and tells nothing of this run of the node. Checked over HTTP and
// WebSocket with a page's Origin, against the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startChain } from './helpers.ts'
import { connect, wsUrl } from './wsHelpers.ts'

import type { Hex } from 'viem'
import type { RpcResponse, TestChain } from './helpers.ts'

let t: TestChain
/** A live snapshot, whose id anvil_metadata lists. */
let snapshotId: Hex
let instanceId: Hex

const EVIL = 'http://evil.example'
const readOnly = ['anvil_metadata', 'hardhat_metadata', 'anvil_getAutomine', 'hardhat_getAutomine'] as const

beforeAll(async () => {
  t = await startChain()
  snapshotId = await t.rpc<Hex>('evm_snapshot')
  instanceId = (await t.rpc<{ instanceId: Hex }>('hardhat_metadata')).instanceId
})

afterAll(async () => {
  await t?.close()
})

/** One request with the page's Origin, or none (the owner) when undefined. */
async function overHttp(origin: string | undefined, method: string): Promise<RpcResponse> {
  const response = await fetch(t.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(origin === undefined ? {} : { Origin: origin }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  })
  return (await response.json()) as RpcResponse
}

async function overWebSocket(origin: string | undefined, method: string): Promise<RpcResponse> {
  const client = await connect(wsUrl(t.url), origin === undefined ? {} : { Origin: origin })
  try {
    return await client.request(method, [])
  } finally {
    await client.close()
  }
}

const transports = [
  ['HTTP', overHttp],
  ['WebSocket', overWebSocket],
] as const

describe.each(transports)('over %s, from a foreign origin', (_, send) => {
  it.each(readOnly)('%s: 4100, with neither the instance id nor a snapshot id', async (method) => {
    const response = await send(EVIL, method)
    expect(response.result).toBeUndefined()
    expect(response.error).toEqual({
      code: 4100,
      message: 'The requested account and/or method has not been authorized by the user: admin methods are for the owner only',
    })
    const text = JSON.stringify(response)
    expect(text).not.toContain(instanceId.slice(2))
    expect(text).not.toContain(`"${snapshotId}"`)
  })

  it('anvil_nodeInfo: the head and the next block’s environment, as the owner gets them, and nothing of this run', async () => {
    const response = await send(EVIL, 'anvil_nodeInfo')
    const head = await t.publicClient.getBlock()
    expect(response.result).toMatchObject({ currentBlockNumber: `0x${head.number.toString(16)}`, currentBlockHash: head.hash, hardFork: 'osaka' })
    expect(response.result).toEqual((await send(undefined, 'anvil_nodeInfo')).result)
    expect(JSON.stringify(response)).not.toContain(instanceId.slice(2))
  })

  it('web3_clientVersion stays public', async () => {
    expect((await send(EVIL, 'web3_clientVersion')).result).toMatch(/flashchain\/v/)
  })
})

describe('the owner', () => {
  it('reads the metadata with the instance id and the live snapshot, and the automine flag', async () => {
    const metadata = await t.rpc<{ instanceId: Hex; snapshots: Record<Hex, [number, Hex]> }>('anvil_metadata')
    expect(metadata.instanceId).toBe(instanceId)
    expect(Object.keys(metadata.snapshots)).toEqual([snapshotId])
    expect(await t.rpc('anvil_getAutomine')).toBe(false)
    expect(await t.rpc('hardhat_getAutomine')).toBe(false)
  })
})
