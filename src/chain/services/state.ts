import { bytesToHex } from '@ethereumjs/util'

import { stateOf } from '../blocks/tags.ts'
import { codeHexOf, codeJsonOf } from '../state/code.ts'
import { dumpState } from '../state/dump.ts'
import { buildStateTrie, proveAccount, provesRoot } from '../state/proof.ts'

import type { EncodedJson } from '../../runtime/encodedJson.ts'
import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { BlockResolver } from '../blocks/tags.ts'
import type { Producer } from '../production/producer.ts'
import type { StateDump } from '../state/dump.ts'
import type { StateHistory } from '../state/history.ts'
import type { StateTrie } from '../state/trie.ts'
import type { StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'
import type { AccountProof, BlockSpecifier } from '../types.ts'

export type StateParts = {
  resolver: BlockResolver
  history: StateHistory
  blocks: SealedBlocks
  /** The head's state trie, which a seal updates in place. */
  trie: StateTrie
  producer: Pick<Producer, 'exclusive'>
}

/** The state of any block: accounts, code and slots, their proofs, and a dump of the latest state. */
export type StateService = {
  /** The state after `block`; BlockNotFoundError when there is none. */
  stateAt(block: BlockSpecifier): StateReader
  /** The code at an address as hex, `0x` for none; an EIP-7702 delegated account's is its designator. */
  code(address: Hex, block: BlockSpecifier): Hex
  /** The same code as eth_getCode's answer: JSON bytes encoded once per code, `0x` for none. */
  codeJson(address: Hex, block: BlockSpecifier): Hex | EncodedJson
  /**
   * EIP-1186: an account and some of its slots at `block`, with Merkle proofs against that block's state root. The
   * head is proved from the trie kept for it; any older block from a trie built from its flat state; `pending` from
   * the pending state's own trie, whose root is the one its block would seal with as it stands.
   */
  proof(address: Hex, slots: readonly Hex[], block: BlockSpecifier): Promise<AccountProof>
  /** Every live account of the latest state, with its code and storage (anvil_dumpState). */
  dumpState(): StateDump
}

export function createStateService(parts: StateParts): StateService {
  const { resolver, history, blocks, trie, producer } = parts
  const resolve = (specifier: BlockSpecifier) => resolver.resolve(specifier)

  return {
    stateAt: (specifier) => stateOf(resolve(specifier), history),
    code: (address, specifier) => codeHexOf(stateOf(resolve(specifier), history), address),
    codeJson: (address, specifier) => codeJsonOf(stateOf(resolve(specifier), history), address),
    async proof(address, slots, specifier) {
      const resolved = resolve(specifier)
      const state = stateOf(resolved, history)
      if (resolved.kind === 'pending') return proveAccount(await buildStateTrie(state, history), state, address, slots)
      const { number } = resolved.block
      const stateRoot = bytesToHex(resolved.block.block.header.stateRoot) as Hex
      // The head's trie changes only on the writer's queue: read it there, while it is still this block's.
      const fromHead = await producer.exclusive(async () => {
        await trie.ready
        return blocks.head().number === number && provesRoot(trie, stateRoot) ? proveAccount(trie, state, address, slots) : undefined
      })
      if (fromHead !== undefined) return fromHead
      const built = await buildStateTrie(state, history)
      if (!provesRoot(built, stateRoot)) throw new Error(`the state of block ${number} does not rebuild to its state root`)
      return proveAccount(built, state, address, slots)
    },
    dumpState: () => dumpState(history.entries(), history.at(blocks.head().number)),
  }
}
