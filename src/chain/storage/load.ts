import { createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { decodeBlock, decodeTransaction, withDepositNonces } from '../opstack/decode.ts'
import { asDeposit } from '../opstack/deposit.ts'
import { createSealedBlocks } from '../blocks/sealedBlocks.ts'
import { createChainSpec } from '../spec/chainSpec.ts'
import { parseGenesisJsonText } from '../spec/genesis.ts'
import { createStateHistory } from '../state/history.ts'
import { createGenesis } from '../state/genesis.ts'
import { startStateTrie } from '../state/trie.ts'
import { fetchUpstreamCode, forkFirstBlock } from '../fork/fork.ts'
import { timestampOf } from './blockRows.ts'
import { blockView, sealedBlockOf } from '../blocks/views.ts'

import type { Common } from '@ethereumjs/common'
import type { SealedBlocks, SealedBlocksSource } from '../blocks/sealedBlocks.ts'
import type { SealedBlock } from '../blocks/types.ts'
import type { OpenFork } from '../fork/fork.ts'
import type { ForkBlock } from '../fork/upstream.ts'
import type { StateDiff } from '../state/types.ts'
import type { CodeSizeLimit } from '../spec/forks.ts'
import type { GenesisAccount, GenesisSpec } from '../spec/genesis.ts'
import type { StateHistory } from '../state/history.ts'
import type { StateTrie } from '../state/trie.ts'
import type { Transaction } from '../types.ts'
import type { Hex } from '../../hex.ts'
import type { ChainStore } from './chainStore.ts'

/** A chain as it starts: its rules, every block, the state history and the trie of the head's state. */
export type LoadedChain = {
  spec: GenesisSpec
  /** The genesis JSON the chain was created from, as stored. */
  genesisText: string
  history: StateHistory
  blocks: SealedBlocks
  trie: StateTrie
  /** What a reset writes again. */
  first: () => Promise<FirstBlock>
}

export type LoadOptions = {
  /** The genesis of a new chain; a data dir that holds a chain resumes the genesis it was created with. */
  genesis: () => unknown
  /** See SealedBlocksOptions. */
  wholeTransactions?: number
  /** Not part of the genesis: each start runs with the one it is given. */
  codeSizeLimit?: CodeSizeLimit
  /** A fork's upstream (fork/fork.ts): its state lies beneath the history, and its fork block is the first block. */
  fork?: OpenFork
  /** The dev accounts, which a fork's first block funds. */
  devAccounts?: ReadonlySet<Hex>
  /** Accounts block 0 holds beneath the genesis's own (an OP Stack chain's predeploys), made when it is made. */
  beneath?: () => Promise<ReadonlyMap<Hex, GenesisAccount>>
  log: (line: string) => void
}

/** The first block's writes, as a new chain wrote them and a reset writes them again. */
export type FirstBlock = { number: bigint; diff: StateDiff; stateRoot: Uint8Array }

/** Opens the chain a store holds, or writes the genesis of a new one. */
export async function loadChain(store: ChainStore, options: LoadOptions): Promise<LoadedChain> {
  const stored = store.getMeta('genesis')
  const genesisJSON = stored !== undefined ? parseGenesisJsonText(stored) : options.genesis()
  const spec = createChainSpec(genesisJSON, { codeSizeLimit: options.codeSizeLimit })
  const { common } = spec
  const { fork } = options
  const history = createStateHistory(undefined, fork?.remote)
  const firstBlock = async () => {
    const made =
      fork === undefined ? await createGenesis(spec, await options.beneath?.()) : await forkFirstBlock(fork, spec, options.devAccounts ?? new Set())
    return { number: made.block.header.number, ...made }
  }
  const first = async (): Promise<FirstBlock> => {
    const { number, diff, trie } = await firstBlock()
    return { number, diff, stateRoot: trie.root() }
  }
  const source = blockSource(store, common)
  const storedHead = stored === undefined ? undefined : store.head()
  const blocks = createSealedBlocks({
    first: fork?.block.number,
    wholeTransactions: options.wholeTransactions,
    readBackTransactions: options.wholeTransactions,
    source,
    // Only the hashes and the head are read at the start: the rest is read when a request names it.
    stored: storedHead === undefined ? undefined : { hashes: store.blockHashes(fork?.block.number ?? 0n), head: source.load(storedHead) },
  })

  if (stored === undefined) {
    const { number, block: genesis, diff, trie } = await firstBlock()
    // Blocks before the horizon, once it moves on (history.ts), are read from the store's rows.
    history.load([[Number(number), diff]], Number(number), store.older)
    const sealed: SealedBlock = { block: genesis, hash: bytesToHex(genesis.hash()) as Hex, number, senders: [], receipts: [] }
    if (fork !== undefined && sealed.hash !== fork.block.hash) {
      options.log(
        `warning: the fork block's header as rebuilt here hashes to ${sealed.hash}, not ${fork.block.hash}: the local blocks name it as their parent`,
      )
    }
    store.writeBlock({ number, hash: sealed.hash, rlp: genesis.serialize(), receipts: [], senders: [], transactionHashes: [] }, diff)
    // Chain ids past 2^53 are bigints here; they are written back as the plain JSON numbers they came as.
    const genesisText = JSON.stringify(genesisJSON, (_key, value) => (typeof value === 'bigint' ? rawJSON(value.toString()) : value))
    store.setMeta('genesis', genesisText)
    if (fork !== undefined) store.setMeta('fork', JSON.stringify(storedFork(fork.block)))
    blocks.add(sealed)
    return { spec, genesisText, history, blocks, trie, first }
  }

  store.loadState(history)
  if (fork !== undefined) await fetchUpstreamCode(history, fork.remote)
  // The trie is built while the chain starts and answers (trie.ts): it is needed only to seal and to prove.
  const trie = startStateTrie(history.entries())
  const head = blocks.head()
  // A change during the build (a reset, a replica's rewind) leaves the trie between two states until the trie is
  // moved with it: only a build the history held still for is compared with the head's root.
  let changed = false
  const unfollow = history.follow(() => (changed = true))
  trie.ready.finally(unfollow).then(
    () => {
      // A fork block's root is the upstream's whole state's, which a fork never holds.
      if (!changed && (head.number !== blocks.first || fork === undefined) && !equalsBytes(trie.root(), head.block.header.stateRoot)) {
        options.log(`warning: rebuilt state root ${bytesToHex(trie.root())} differs from block ${head.number}'s`)
      }
    },
    // Each seal waits for the trie, and fails with this.
    (error: unknown) => options.log(`error: the state trie could not be rebuilt: ${error instanceof Error ? error.message : String(error)}`),
  )
  return { spec, genesisText: stored, history, blocks, trie, first }
}

/** The store's answers about sealed blocks, decoded with the chain's rules. */
function blockSource(store: ChainStore, common: Common): SealedBlocksSource & { load(number: bigint): SealedBlock } {
  return {
    load(number) {
      const block = store.block(number)!
      const decoded = withDepositNonces(decodeBlock(block.rlp, { common, setHardfork: true }), block.receipts)
      return { block: decoded, hash: bytesToHex(decoded.hash()) as Hex, number, senders: block.senders, receipts: block.receipts }
    },
    view(number, hash, whole) {
      const { body, hashes, size } = store.summary(number)!
      return blockView({
        hash,
        block: decodeBlock(body, { common, setHardfork: true }),
        size: () => BigInt(size),
        transactionHashes: () => hashes,
        transactions: () => sealedBlockOf(whole()).transactions as Transaction[],
        receipts: () => sealedBlockOf(whole()).receipts,
      })
    },
    numberOf: (hash) => store.numberOf(hash),
    locate: (hash) => store.locate(hash),
    transaction(hash, blockHash) {
      const stored = store.transaction(hash)
      if (stored === undefined) return undefined
      const { number } = stored
      // The header's hardfork has the rules that decode the transaction (a 7702 one needs Prague's).
      const header = createBlockHeaderFromBytesArray(store.header(number)!, { common, setHardfork: true })
      const block = { hash: blockHash(number), number, timestamp: header.timestamp, baseFeePerGas: header.baseFeePerGas }
      const tx = decodeTransaction(stored.raw, header.common)
      const deposit = asDeposit(tx)
      if (deposit !== undefined && stored.receipt.depositNonce !== undefined) deposit.nonce = stored.receipt.depositNonce
      return { tx, sender: stored.sender, receipt: stored.receipt, index: stored.index, firstLog: stored.firstLog, block }
    },
    timestamp: (number) => timestampOf(store.header(number)!),
    logRows: (from, to, criteria) => store.logRows(from, to, criteria),
  }
}

/** The fork a data dir holds, as its meta row keeps it. */
export function storedFork(block: ForkBlock): { chainId: string; number: string; hash: Hex } {
  return { chainId: block.chainId.toString(), number: block.number.toString(), hash: block.hash }
}

/** The fork a data dir holds, or undefined when it holds none (or nothing). */
export function readStoredFork(store: ChainStore): ForkBlock | undefined {
  const text = store.getMeta('fork')
  if (text === undefined) return undefined
  const { chainId, number, hash } = JSON.parse(text) as ReturnType<typeof storedFork>
  return { chainId: BigInt(chainId), number: BigInt(number), hash }
}

/** JSON.rawJSON (Node 21+), not yet in TypeScript's lib: a JSON number of any size. */
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON
