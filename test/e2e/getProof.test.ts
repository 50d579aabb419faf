import { verifyMerkleProof } from '@ethereumjs/mpt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { bytesToHex, encodeFunctionData, fromRlp, hexToBytes, keccak256 } from 'viem'

import { Store } from './fixtures/contracts.ts'
import { ZERO_WORD, deploy, startChain, toHex, word } from './helpers.ts'

import type { Hex } from 'viem'
import type { TestChain } from './helpers.ts'

type Proof = {
  address: Hex
  accountProof: Hex[]
  balance: Hex
  codeHash: Hex
  nonce: Hex
  storageHash: Hex
  storageProof: { key: Hex; value: Hex; proof: Hex[] }[]
}

let t: TestChain
let store: Hex

beforeAll(async () => {
  t = await startChain()
  store = (await deploy(t, Store, [5n])).address
  await t.mine()
})

afterAll(async () => {
  await t?.close()
})

/** An RLP integer: big-endian bytes without leading zeros, empty for zero. */
const rlpInteger = (bytes: Hex) => (bytes === '0x' ? 0n : BigInt(bytes))

/** What a proof proves under `root`: the value at `key` (hashed, as state and storage tries key), or null for none. */
async function proven(root: Hex, key: Hex, proof: Hex[]): Promise<Hex | null> {
  expect(keccak256(proof[0]!)).toBe(root)
  const value = await verifyMerkleProof(
    hexToBytes(key),
    proof.map((node) => hexToBytes(node)),
    { useKeyHashing: true },
  )
  return value === null ? null : bytesToHex(value)
}

/** Checks an eth_getProof answer against a state root: the account and every slot, node by node. */
async function verify(proof: Proof, stateRoot: Hex): Promise<void> {
  const account = await proven(stateRoot, proof.address, proof.accountProof)
  if (account === null) {
    expect(proof).toMatchObject({ balance: '0x0', nonce: '0x0', codeHash: ZERO_WORD, storageHash: ZERO_WORD })
  } else {
    const [nonce, balance, storageHash, codeHash] = fromRlp(account) as Hex[]
    expect(rlpInteger(nonce!)).toBe(BigInt(proof.nonce))
    expect(rlpInteger(balance!)).toBe(BigInt(proof.balance))
    expect([storageHash, codeHash]).toEqual([proof.storageHash, proof.codeHash])
  }
  for (const entry of proof.storageProof) {
    if (entry.proof.length === 0) {
      expect(entry.value).toBe('0x0')
      continue
    }
    const slot = word(BigInt(entry.key))
    const value = await proven(proof.storageHash, slot, entry.proof)
    expect(value === null ? 0n : rlpInteger(fromRlp(value) as Hex)).toBe(BigInt(entry.value))
  }
}

const stateRootOf = async (at: Hex | string) => (await t.rpc<{ stateRoot: Hex }>('eth_getBlockByNumber', [at, false])).stateRoot

/** Sends `Store.set(value)` and seals it; the block number. */
async function setAndSeal(value: bigint): Promise<bigint> {
  await t.wallet(1).sendTransaction({ to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [value] }) })
  return t.mine()
}

describe('eth_getProof', () => {
  it('default: the account and its slots verify against the latest state root', async () => {
    const proof = await t.rpc<Proof>('eth_getProof', [store, [ZERO_WORD, word(1n)], 'latest'])
    expect(proof.storageProof.map((entry) => entry.value)).toEqual(['0x5', '0x0'])
    expect(proof.codeHash).toBe(keccak256(Store.deployedBytecode))
    await verify(proof, await stateRootOf('latest'))
    // A dev account: no code and no storage.
    const eoa = await t.rpc<Proof>('eth_getProof', [t.accounts[0]!.address.toLowerCase(), [ZERO_WORD], 'latest'])
    expect(eoa.storageProof).toEqual([{ key: ZERO_WORD, value: '0x0', proof: [] }])
    await verify(eoa, await stateRootOf('latest'))
  })

  it('an older block is proved against its own state root, with the values it had', async () => {
    const before = await t.blockNumber()
    const after = await setAndSeal(9n)
    const old = await t.rpc<Proof>('eth_getProof', [store, [ZERO_WORD], toHex(before)])
    expect(old.storageProof[0]!.value).toBe('0x5')
    await verify(old, await stateRootOf(toHex(before)))
    const block = await t.rpc<{ hash: Hex }>('eth_getBlockByNumber', [toHex(before), false])
    expect(await t.rpc('eth_getProof', [store, [ZERO_WORD], { blockHash: block.hash }])).toEqual(old)
    const latest = await t.rpc<Proof>('eth_getProof', [store, [ZERO_WORD], toHex(after)])
    expect(latest.storageProof[0]!.value).toBe('0x9')
    expect(latest.storageHash).not.toBe(old.storageHash)
    await verify(latest, await stateRootOf(toHex(after)))
    // Genesis too: the store did not exist yet.
    await verify(await t.rpc<Proof>('eth_getProof', [store, [ZERO_WORD], 'earliest']), await stateRootOf('0x0'))
  })

  it('pending proves the pre-confirmed state, against the root its block then seals with', async () => {
    await t.wallet(1).sendTransaction({ to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [11n] }) })
    await t.preconfirm()
    const pending = await t.rpc<Proof>('eth_getProof', [store, [ZERO_WORD], 'pending'])
    expect(pending.storageProof[0]!.value).toBe('0xb')
    const sealed = await t.mine()
    await verify(pending, await stateRootOf(toHex(sealed)))
  })

  it('an account that does not exist: zero hashes and a proof of its absence', async () => {
    const nobody = '0x00000000000000000000000000000000000b0b0b'
    const proof = await t.rpc<Proof>('eth_getProof', [nobody, ['0x1'], 'latest'])
    expect(proof).toMatchObject({ address: nobody, balance: '0x0', nonce: '0x0', codeHash: ZERO_WORD, storageHash: ZERO_WORD })
    expect(proof.storageProof).toEqual([{ key: '0x1', value: '0x0', proof: [] }])
    await verify(proof, await stateRootOf('latest'))
  })

  it('a key shorter than 32 bytes is answered as a quantity, a 32-byte one as given', async () => {
    const proof = await t.rpc<Proof>('eth_getProof', [store, ['0x0', '0', `0x${'00'.repeat(31)}00`], 'latest'])
    expect(proof.storageProof.map((entry) => [entry.key, entry.value])).toEqual([
      ['0x0', '0xb'],
      ['0x0', '0xb'],
      [ZERO_WORD, '0xb'],
    ])
  })

  it('error: a key over 32 bytes, a malformed address or no block is -32602; an unknown block -32001', async () => {
    expect((await t.rpcError('eth_getProof', [store, [`0x${'11'.repeat(33)}`], 'latest'])).code).toBe(-32602)
    expect((await t.rpcError('eth_getProof', [store, ['0xzz'], 'latest'])).code).toBe(-32602)
    expect((await t.rpcError('eth_getProof', ['0x1234', [], 'latest'])).code).toBe(-32602)
    expect((await t.rpcError('eth_getProof', [store, []])).code).toBe(-32602)
    expect((await t.rpcError('eth_getProof', [store, [], toHex((await t.blockNumber()) + 5n)])).code).toBe(-32001)
  })
})

describe('eth_getStorageValues', () => {
  it('default: several slots of several accounts from one state, each a 32-byte word, accounts in address order', async () => {
    const other = '0x0000000000000000000000000000000000000001'
    const values = await t.rpc<Record<Hex, Hex[]>>('eth_getStorageValues', [{ [store]: [ZERO_WORD, word(1n)], [other]: [ZERO_WORD] }, 'latest'])
    expect(values).toEqual({ [other]: [ZERO_WORD], [store]: [word(11n), ZERO_WORD] })
    expect(Object.keys(values)).toEqual([other, store])
    const first = await t.rpc<Record<Hex, Hex[]>>('eth_getStorageValues', [{ [store]: [ZERO_WORD] }, '0x1'])
    expect(first).toEqual({ [store]: [word(5n)] })
  })

  it('pending sees a pre-confirmed write', async () => {
    await t.wallet(1).sendTransaction({ to: store, data: encodeFunctionData({ abi: Store.abi, functionName: 'set', args: [12n] }) })
    await t.preconfirm()
    expect(await t.rpc('eth_getStorageValues', [{ [store]: [ZERO_WORD] }, 'pending'])).toEqual({ [store]: [word(12n)] })
    expect(await t.rpc('eth_getStorageValues', [{ [store]: [ZERO_WORD] }])).toEqual({ [store]: [word(11n)] })
    await t.mine()
  })

  it('error: no slots is -32602, more than 1024 is -32005, a short key is -32602', async () => {
    expect(await t.rpcError('eth_getStorageValues', [{ [store]: [] }])).toEqual({ code: -32602, message: 'empty request' })
    const many = Array.from({ length: 1025 }, (_, i) => word(BigInt(i)))
    expect(await t.rpcError('eth_getStorageValues', [{ [store]: many }])).toEqual({ code: -32005, message: 'too many slots (max 1024)' })
    expect((await t.rpcError('eth_getStorageValues', [{ [store]: ['0x1'] }])).code).toBe(-32602)
  })
})
