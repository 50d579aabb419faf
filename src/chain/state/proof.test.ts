import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { verifyMerkleProof } from '@ethereumjs/mpt'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { keccak256 } from '../crypto/keccak.ts'
import { createChain } from '../chain.ts'
import { parseGenesisJsonText } from '../spec/genesis.ts'

import type { Hex } from '../../hex.ts'

const fixtures = join(import.meta.dirname, '..', '..', '..', 'test', 'conformance', 'execution-apis', 'tests')
const genesis = parseGenesisJsonText(readFileSync(join(fixtures, 'genesis.json'), 'utf8'))
const chainRlp = new Uint8Array(readFileSync(join(fixtures, 'chain.rlp')))

/** A contract of the execution-apis genesis, whose slot 0 its blocks write. */
const contract = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df' as Hex
const slot0 = `0x${'00'.repeat(32)}` as Hex

describe('chain.state.proof on an imported chain', () => {
  test('every block, pre-merge ones included, is proved against the state root its header carries', async () => {
    const chain = await createChain({ genesis, importBlocks: chainRlp, mining: 'manual', workers: 0 })
    try {
      for (let number = 0n; number <= 54n; number += 6n) {
        const block = chain.blocks.block(number)
        if (block?.kind !== 'sealed') throw new Error(`no block ${number}`)
        const { stateRoot } = block.header
        const proof = await chain.state.proof(contract, [slot0], number)
        expect(bytesToHex(keccak256(hexToBytes(proof.accountProof[0]!)))).toBe(stateRoot)
        const account = await verifyMerkleProof(
          hexToBytes(contract),
          proof.accountProof.map((node) => hexToBytes(node)),
          { useKeyHashing: true },
        )
        expect(account).not.toBeNull()
        expect(proof.storageProof[0]!.value).toBe(
          chain.state
            .stateAt(number)
            .storage(contract, slot0)
            .reduce((n, byte) => (n << 8n) | BigInt(byte), 0n),
        )
        // An account that never existed: the proof, against the same root, shows its absence.
        const absent = await chain.state.proof('0x00000000000000000000000000000000000bad00', [], number)
        expect(bytesToHex(keccak256(hexToBytes(absent.accountProof[0]!)))).toBe(stateRoot)
        expect(
          await verifyMerkleProof(
            hexToBytes('0x00000000000000000000000000000000000bad00'),
            absent.accountProof.map((node) => hexToBytes(node)),
            { useKeyHashing: true },
          ),
        ).toBeNull()
      }
    } finally {
      await chain.close()
    }
  })
})
