import { createBlockHeader, genRequestsRoot } from '@ethereumjs/block'
import { KECCAK256_RLP, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'

import { builderHeaderData } from '../ethereumjs/blockBuilder.ts'
import { envHeaderData } from './startBuilder.ts'
import { createStateDiff, mergeDiff } from '../state/types.ts'

import type { Block, HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import type { FlatStateManager } from '../state/stateManager.ts'
import type { StateTrie } from '../state/trie.ts'
import type { Hex } from '../../hex.ts'
import type { SealedBlock } from '../blocks/types.ts'
import type { BlockEnv, BuiltFlashblock, Flashblock } from '../types.ts'
import type { Building, Preview } from './building.ts'

/** What the stream says of the block as of a flashblock: its roots and hash, as if it were sealed then. */
export type FlashblockRoots = Pick<
  Flashblock,
  'stateRoot' | 'receiptsRoot' | 'logsBloom' | 'gasUsed' | 'blockHash' | 'withdrawalsRoot' | 'blobGasUsed'
>

/**
 * The roots and hash the block would have if it were sealed now, before the end-of-block system calls
 * (EIP-7002, EIP-7251): on a chain where nobody queues withdrawal or consolidation requests, those neither add
 * requests nor change state, and the preview is what the seal gives.
 */
export async function previewRoots(block: Building, parts: { vm: VM; stateManager: FlatStateManager; trie: StateTrie }): Promise<Preview> {
  const { vm, stateManager, trie } = parts
  const { builder } = block
  const diff = createStateDiff()
  for (const segment of block.segments) mergeDiff(diff, segment)
  const stateRoot = (await trie.preview(diff, stateManager.base)).root
  const receiptsRoot = await builder.receiptTrie()
  const logsBloom = new Uint8Array(256)
  for (const receipt of block.receipts) {
    const bloom = hexToBytes(receipt.logsBloom)
    for (let i = 0; i < 256; i++) logsBloom[i]! |= bloom[i]!
  }
  const common = vm.common
  const headerData: HeaderData = {
    ...builderHeaderData(builder),
    stateRoot,
    transactionsTrie: await builder.transactionsTrie(),
    receiptTrie: receiptsRoot,
    logsBloom,
    gasUsed: builder.gasUsed,
    withdrawalsRoot: common.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
    blobGasUsed: common.isActivatedEIP(4844) ? builder.blobGasUsed : undefined,
    requestsHash: common.isActivatedEIP(7685) ? genRequestsRoot([], sha256) : undefined,
  }
  const header = createBlockHeader(headerData, { common, skipConsensusFormatValidation: true })
  return { header, hash: bytesToHex(header.hash()) as Hex }
}

/** What the stream carries of the newest flashblock: the transactions it added, the balances it changed, and the roots. */
export function flashblockOf(block: Building, roots: FlashblockRoots, sealed = false): BuiltFlashblock {
  const { first, diff, accesses } = block.newest
  const transactions: Flashblock['transactions'] = []
  for (let i = first; i < block.transactions.length; i++) {
    // The block's own encoding: a blob transaction without its blobs (EIP-4844).
    const tx = block.sealed.transactions[i]!
    const entry = block.entries[i]
    transactions.push({
      raw: bytesToHex(tx.serialize()) as Hex,
      hash: bytesToHex(tx.hash()) as Hex,
      type: tx.type,
      receipt: block.receipts[i]!,
      ...(entry?.impersonated === true && { impersonated: entry.sender }),
    })
  }
  const given = builderHeaderData(block.builder).extraData
  return {
    number: block.env.number,
    index: block.flashblockIndex,
    env: block.env,
    extraData: (given === undefined ? '0x' : bytesToHex(given as Uint8Array)) as Hex,
    transactions,
    balances: [...diff.accounts].map(([address, account]) => [address, account?.balance ?? 0n]),
    sealed,
    accessList: block.recorder === undefined ? undefined : { minTxIndex: first, maxTxIndex: block.transactions.length, accounts: accesses.list() },
    ...roots,
  }
}

/** The roots and hash a header gives, as the stream writes them. */
export function rootsOf(header: Block['header'], hash: Hex): FlashblockRoots {
  return {
    stateRoot: bytesToHex(header.stateRoot) as Hex,
    receiptsRoot: bytesToHex(header.receiptTrie) as Hex,
    logsBloom: bytesToHex(header.logsBloom) as Hex,
    gasUsed: header.gasUsed,
    blockHash: hash,
    withdrawalsRoot: header.withdrawalsRoot === undefined ? undefined : (bytesToHex(header.withdrawalsRoot) as Hex),
    blobGasUsed: header.blobGasUsed,
  }
}

/**
 * The header of the pending block before its first flashblock: nothing has run on the head's state yet, so it has the
 * head's state root and empty tries.
 */
export function idleHeader(head: SealedBlock, env: BlockEnv, idleCommon: Common): Block['header'] {
  return createBlockHeader(
    {
      ...envHeaderData(env),
      parentHash: head.block.hash(),
      stateRoot: head.block.header.stateRoot,
      withdrawalsRoot: idleCommon.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
      blobGasUsed: idleCommon.isActivatedEIP(4844) ? 0n : undefined,
      requestsHash: idleCommon.isActivatedEIP(7685) ? genRequestsRoot([], sha256) : undefined,
    },
    { common: idleCommon, skipConsensusFormatValidation: true },
  )
}
