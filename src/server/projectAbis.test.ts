import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { loadProjectAbis } from './projectAbis.ts'

const transfer = {
  type: 'event',
  name: 'Transfer',
  inputs: [
    { name: 'from', type: 'address', indexed: true },
    { name: 'value', type: 'uint256' },
  ],
}
const set = { type: 'function', name: 'set', inputs: [{ name: 'value', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' }
const failed = { type: 'error', name: 'Failed', inputs: [{ name: 'point', type: 'tuple', components: [{ name: 'x', type: 'uint8' }] }] }

let root: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'project-abis-'))
  // Foundry: out/<File>.sol/<Contract>.json with the ABI beside the bytecode.
  mkdirSync(join(root, 'out', 'Token.sol'), { recursive: true })
  writeFileSync(
    join(root, 'out', 'Token.sol', 'Token.json'),
    JSON.stringify({ abi: [transfer, set, { type: 'constructor', inputs: [] }], bytecode: { object: '0x00' } }),
  )
  // Hardhat: artifacts/contracts/<File>.sol/<Contract>.json, and build-info, which is compiler output, not an artifact.
  mkdirSync(join(root, 'artifacts', 'contracts', 'Store.sol'), { recursive: true })
  mkdirSync(join(root, 'artifacts', 'build-info'), { recursive: true })
  writeFileSync(join(root, 'artifacts', 'contracts', 'Store.sol', 'Store.json'), JSON.stringify({ contractName: 'Store', abi: [set, failed] }))
  writeFileSync(join(root, 'artifacts', 'build-info', 'abc.json'), JSON.stringify({ abi: [{ type: 'event', name: 'Hidden', inputs: [] }] }))
  // A bare ABI, a file that is not one, and one that is not JSON at all.
  writeFileSync(join(root, 'Bare.json'), JSON.stringify([{ ...transfer, inputs: [transfer.inputs[0], { ...transfer.inputs[1], indexed: true }] }]))
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'dapp', abi: 'not a list' }))
  writeFileSync(join(root, 'broken.json'), '{')
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('loadProjectAbis', () => {
  test('reads Foundry and Hardhat artifacts and bare ABIs, keeping each event, function and error once', () => {
    const lines: string[] = []
    const items = loadProjectAbis([join(root, 'out'), join(root, 'artifacts'), join(root, 'Bare.json')], (line) => lines.push(line))
    // `set` is in two artifacts and kept once; the constructor decodes nothing and is left out; the two Transfers
    // differ in what is indexed, which decoding must tell apart.
    expect(items).toEqual([transfer, set, failed, expect.objectContaining({ name: 'Transfer' })])
    expect(items[3]!.inputs![1]!.indexed).toBe(true)
    expect(lines).toEqual(['read 4 ABI items from 3 artifact files'])
  })

  test('a whole project folder: build-info and JSON that holds no ABI are passed over', () => {
    const names = loadProjectAbis([root]).map((item) => item.name)
    expect(names).not.toContain('Hidden')
    expect(names.sort()).toEqual(['Failed', 'Transfer', 'Transfer', 'set'])
  })

  test('a path that is not there stops the start, naming it', () => {
    expect(() => loadProjectAbis([join(root, 'missing')])).toThrow(`--abi ${join(root, 'missing')}: no such file or folder`)
  })
})
