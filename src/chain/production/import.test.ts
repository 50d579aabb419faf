import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { RLP } from '@ethereumjs/rlp'
import { describe, expect, test } from 'vitest'

import { createChain } from '../chain.ts'
import { parseGenesisJsonText } from '../spec/genesis.ts'

const fixtures = join(import.meta.dirname, '..', '..', '..', 'test', 'conformance', 'execution-apis', 'tests')
const genesis = parseGenesisJsonText(readFileSync(join(fixtures, 'genesis.json'), 'utf8'))
const chainRlp = new Uint8Array(readFileSync(join(fixtures, 'chain.rlp')))

/** The RLP of each block of the file, in order. */
function splitBlocks(bytes: Uint8Array): Uint8Array[] {
  const blocks: Uint8Array[] = []
  let rest = bytes
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true)
    blocks.push(RLP.encode(data))
    rest = remainder
  }
  return blocks
}

function concat(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((part) => [...part]))
}

describe('import', () => {
  test('imports the execution-apis chain; head, safe and finalized are its last block', async () => {
    const chain = await createChain({ genesis, importBlocks: chainRlp, mining: 'manual' })
    try {
      expect(chain.blocks.head().header.number).toBe(54n)
      expect(chain.blocks.head().hash).toBe('0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7')
      expect(chain.blocks.block('safe')).toMatchObject({ kind: 'sealed', header: { number: 54n } })
      expect(chain.blocks.block('finalized')).toMatchObject({ kind: 'sealed', header: { number: 54n } })
      expect(chain.spec.chainId).toBe(3503995874084926n)
    } finally {
      await chain.close()
    }
  })

  test('error: a block whose state root disagrees stops the import and names the block', async () => {
    const blocks = splitBlocks(chainRlp)
    // Block 10's header claims another state root; its hash changes too, so nothing after it could follow.
    const [header, ...body] = RLP.decode(blocks[9]!) as Uint8Array[][]
    const forged = [...header!]
    forged[3] = new Uint8Array(32).fill(7)
    blocks[9] = RLP.encode([forged, ...body] as never)
    await expect(createChain({ genesis, importBlocks: concat(blocks), mining: 'manual' })).rejects.toThrow(
      /^import: block 10 \(0x[0-9a-f]{64}\) does not execute to its header: invalid block stateRoot/,
    )
  })

  test('error: a block that does not follow the head is refused', async () => {
    const blocks = splitBlocks(chainRlp)
    await expect(createChain({ genesis, importBlocks: concat([blocks[0]!, blocks[2]!]), mining: 'manual' })).rejects.toThrow(
      /^import: block 3: parent 0x[0-9a-f]{64} is not the head \(block 1, 0x[0-9a-f]{64}\)$/,
    )
  })
})
