import { createBlock } from '@ethereumjs/block'
import { KECCAK256_NULL, KECCAK256_RLP, bytesToHex } from '@ethereumjs/util'

import { keccak256 } from '../crypto/keccak.ts'
import { createStateTrie } from './trie.ts'
import { createStateDiff } from './types.ts'

import type { Block } from '@ethereumjs/block'
import type { Hex } from '../../hex.ts'
import type { GenesisAccount, GenesisSpec } from '../spec/genesis.ts'
import type { StateTrie } from './trie.ts'
import type { StateDiff } from './types.ts'

/**
 * Block 0: the alloc as block 0's state writes (with exact storage roots), the trie of that state, and the block.
 * `beneath`: accounts the chain adds to every genesis of its kind (the OP Stack's predeploys), which the alloc's own
 * accounts take the place of.
 */
export async function createGenesis(
  spec: GenesisSpec,
  beneath?: ReadonlyMap<Hex, GenesisAccount>,
): Promise<{ block: Block; diff: StateDiff; trie: StateTrie }> {
  const diff = createStateDiff()
  const alloc = beneath === undefined ? spec.alloc : new Map([...beneath, ...spec.alloc])
  for (const [address, account] of alloc) {
    let codeHash = KECCAK256_NULL
    if (account.code.length > 0) {
      codeHash = keccak256(account.code)
      diff.code.set(bytesToHex(codeHash) as Hex, account.code)
    }
    diff.accounts.set(address, { nonce: account.nonce, balance: account.balance, codeHash, storageRoot: KECCAK256_RLP })
    if (account.storage.size > 0) diff.storage.set(address, { cleared: false, slots: new Map(account.storage) })
  }
  const trie = await createStateTrie(
    [...diff.accounts].map(([address, account]) => [address, account!, diff.storage.get(address)?.slots ?? new Map()] as const),
  )
  for (const [address, account] of diff.accounts) {
    if (account !== null && diff.storage.has(address)) diff.accounts.set(address, { ...account, storageRoot: trie.storageRoot(address) })
  }
  const block = createBlock({ header: { ...spec.header, stateRoot: trie.root() } }, { common: spec.common, setHardfork: true })
  return { block, diff, trie }
}
