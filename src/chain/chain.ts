import { createBlock, createBlockFromBytesArray, createBlockFromRLP } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { Capability, createBlob4844TxFromSerializedNetworkWrapper, createTxFromRLP, getMinimumGasLimit } from '@ethereumjs/tx'
import { Bloom, createVM } from '@ethereumjs/vm'
import { KECCAK256_NULL, KECCAK256_RLP, bytesToBigInt, bytesToHex, eoaCode7702RecoverAuthority, equalsBytes } from '@ethereumjs/util'

import { BlockNotFoundError, ExecutionRevertedError, type RpcError, TransactionRejectedError, txErrors } from '../errors.ts'
import { defaults, deriveAccounts, devGenesis, keyAccount } from './spec/config.ts'
import { createCallRunner } from './execution/callRunner.ts'
import { createExecutionPool, WorkerGoneError } from './execution/workerPool.ts'
import { createBlockchain } from './execution/executor.ts'
import { CALL_STIPEND } from './execution/estimate.ts'
import { parseGenesisJsonText, parseGethGenesis } from './spec/genesis.ts'
import { createAnswerCache } from './execution/answers.ts'
import { pendingPosition } from './blocks/types.ts'
import { cacheJumpAnalysis } from './execution/jumpAnalysis.ts'
import { bloomMayMatch, bloomQuery } from './blocks/logsBloom.ts'
import { keccak256 } from './crypto/keccak.ts'
import { createLazyKZG } from './crypto/kzg.ts'
import { nativeEcrecover } from './crypto/secp256k1.ts'
import { createForks, EIP7825_TX_GAS_CAP, mergeParamsOnce } from './spec/forks.ts'
import { withOverrides, type Overrides } from './execution/overrides.ts'
import { createPool } from './production/txpool.ts'
import { createProducer, headerEnv } from './production/producer.ts'
import { openChainStore, openDatabase } from './storage/chainStore.ts'
import { systemContracts } from './spec/systemContracts.ts'
import { createSealedBlocks, type BlockLogs } from './blocks/sealedBlocks.ts'
import { createStateHistory } from './state/history.ts'
import { FlatStateManager } from './state/stateManager.ts'
import { createOverlay } from './state/overlay.ts'
import { createStateTrie } from './state/trie.ts'
import { createStateDiff } from './state/types.ts'

import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { BlockEnv, Log, PendingBlock, Receipt, SealedBlock } from './blocks/types.ts'
import type { ChainOptions, DevAccount, MiningMode } from './spec/config.ts'
import type { CallRequest, ExecutionView } from './execution/executor.ts'
import type { ExecutionPool } from './execution/workerPool.ts'
import type { CallMethod } from './execution/workerMessages.ts'
import type { PoolTransaction } from './production/txpool.ts'
import type { AccountRecord, Hex, StateDiff, StateReader } from './state/types.ts'

export type BlockTag = 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest'

/** A block as a request names it: a tag, a number, or an EIP-1898 hash. */
export type BlockSpecifier = BlockTag | bigint | { blockHash: Hex; requireCanonical?: boolean }

export type ResolvedBlock = { kind: 'sealed'; block: SealedBlock } | { kind: 'pending'; block: PendingBlock }

/** Where a transaction is: sealed in a block, pre-confirmed in the pending block, or waiting in the pool. */
export type TransactionLocation =
  | { kind: 'sealed'; tx: TypedTransaction; sender: Hex; index: number; block: SealedBlock; receipt: Receipt; logIndex: number }
  | { kind: 'preconfirmed'; tx: TypedTransaction; sender: Hex; index: number; block: PendingBlock; receipt: Receipt; logIndex: number }
  | { kind: 'pool'; tx: TypedTransaction; sender: Hex }

/** Logs in [fromBlock, toBlock]; an empty address list, and null or [] at a topic position, match anything. */
export type LogFilter = { fromBlock: bigint; toBlock: bigint; addresses?: Hex[]; topics?: (Hex | Hex[] | null)[]; includePending?: boolean }
export type FoundLog = Log & {
  blockNumber: bigint
  blockHash: Hex | null
  blockTimestamp: bigint
  transactionHash: Hex
  transactionIndex: number
  logIndex: number
}

export type SequencePlan = { gas: bigint; reverts: boolean }

export type Chain = {
  readonly chainId: bigint
  readonly common: Common
  readonly revertCode: number
  readonly accounts: readonly DevAccount[]
  readonly mining: MiningMode
  head(): SealedBlock
  resolve(block: BlockSpecifier): ResolvedBlock
  /** The number `block` names, without reading a sealed block back from the store. */
  numberOf(block: BlockSpecifier): bigint
  stateAt(block: BlockSpecifier): StateReader
  blockByNumber(number: bigint): SealedBlock | undefined
  blockByHash(hash: Hex): SealedBlock | undefined
  findTransaction(hash: Hex): TransactionLocation | undefined
  /** The nonce the sender's next transaction should use: pending state plus queued pool transactions. */
  nextNonce(address: Hex): bigint
  call(request: CallRequest, block: BlockSpecifier, overrides?: Overrides): Promise<Uint8Array>
  estimateGas(request: CallRequest, block: BlockSpecifier, overrides?: Overrides): Promise<bigint>
  /**
   * Gas for transactions to be sent one after the other: each is estimated on the state the previous ones leave.
   * One that will revert gets the gas its failing run consumed, and is marked.
   */
  estimateSequence(steps: { request: CallRequest; gas?: bigint }[], block: BlockSpecifier): Promise<SequencePlan[]>
  /** Whether an EIP is active in the pending block. */
  isActive(eip: number): boolean
  /** EIP-7825's per-transaction gas cap in the pending block, if active. */
  txGasCap(): bigint | undefined
  sendRawTransaction(raw: Uint8Array): Promise<Hex>
  preconfirm(): Promise<PendingBlock>
  mine(options?: { timestamp?: bigint }): Promise<SealedBlock>
  waitForPreconfirmation(hash: Hex, timeoutMs: number): Promise<boolean>
  getLogs(filter: LogFilter): FoundLog[]
  /** EVM runs made by calls and estimates so far (a debug figure). */
  readonly executionRuns: number
  close(): Promise<void>
}

const CONFIRMATION_DEPTH = { safe: 32n, finalized: 64n }
/** Where the timestamp is among a block header's RLP fields (parent hash, ommers hash, …, gas used, timestamp). */
const HEADER_TIMESTAMP = 11
const EMPTY = new Uint8Array(0)

function allocDiff(alloc: ReturnType<typeof parseGethGenesis>['alloc']): StateDiff {
  const diff = createStateDiff()
  for (const [address, account] of alloc) {
    let codeHash = KECCAK256_NULL
    if (account.code.length > 0) {
      codeHash = keccak256(account.code)
      diff.code.set(bytesToHex(codeHash) as Hex, account.code)
    }
    diff.accounts.set(address, { nonce: account.nonce, balance: account.balance, codeHash, storageRoot: KECCAK256_RLP })
    if (account.storage.size > 0) diff.storage.set(address, { cleared: false, slots: new Map(account.storage) })
  }
  return diff
}

export async function createChain(options: ChainOptions = {}): Promise<Chain> {
  const log = options.log ?? (() => {})
  const debug = options.debug
  // A database handed in belongs to the caller (who shares it with the wallet); one opened here is ours to close.
  const ownsDatabase = options.database === undefined
  const database = options.database ?? openDatabase(options)
  const store = openChainStore(database)
  const accounts =
    options.privateKeys?.map(keyAccount) ?? deriveAccounts(options.mnemonic ?? defaults.mnemonic, options.accounts ?? defaults.accounts)
  const revertCode = options.revertCode ?? defaults.revertCode
  const rpcGasCap = options.rpcGasCap ?? defaults.rpcGasCap
  const mining = options.mining ?? defaults.mining

  // The genesis a data dir was created with wins over today's options, so a restart resumes the same chain.
  const storedGenesis = store.getMeta('genesis')
  const genesisJSON: unknown =
    storedGenesis !== undefined
      ? parseGenesisJsonText(storedGenesis)
      : (options.genesis ??
        devGenesis({
          chainId: options.chainId ?? defaults.chainId,
          hardfork: options.hardfork ?? defaults.hardfork,
          gasLimit: options.blockGasLimit ?? defaults.blockGasLimit,
          timestamp: Math.floor(Date.now() / 1000),
          alloc: {
            ...Object.fromEntries(
              Object.values(systemContracts).map((contract) => [contract.address, { balance: 0n, code: contract.code }]),
            ),
            ...Object.fromEntries(
              Object.entries(options.predeploys ?? {}).map(([address, account]) => [address.toLowerCase(), { ...account, balance: account.balance ?? 0n }]),
            ),
            ...Object.fromEntries(accounts.map((account) => [account.address, { balance: options.balance ?? defaults.balance }])),
          },
        }))
  const spec = parseGethGenesis(genesisJSON, { customCrypto: { kzg: createLazyKZG(), ecrecover: nativeEcrecover(), keccak256 } })
  const common = mergeParamsOnce(spec.common)
  await cacheJumpAnalysis()
  const chainId = common.chainId()

  const history = createStateHistory()
  const blocks = createSealedBlocks({
    wholeTransactions: options.wholeTransactions,
    readBackTransactions: options.wholeTransactions,
    load(number, hash) {
      const stored = store.block(number)!
      const block = createBlockFromRLP(stored.rlp, { common, setHardfork: true })
      return { block, hash, number, senders: stored.senders, receipts: stored.receipts }
    },
    loadLogs(number, hash) {
      const stored = store.blockReceipts(number)!
      const [header, transactions] = RLP.decode(stored.rlp) as [Uint8Array[], (Uint8Array | Uint8Array[])[]]
      return {
        number,
        hash,
        timestamp: bytesToBigInt(header[HEADER_TIMESTAMP]!),
        receipts: stored.receipts,
        // In a block body a typed transaction is its own encoding, a legacy one an RLP list; its hash is the
        // keccak of that encoding either way.
        transactionHash: (index) => {
          const item = transactions[index]!
          return bytesToHex(keccak256(item instanceof Uint8Array ? item : RLP.encode(item))) as Hex
        },
      }
    },
  })
  const txIndex = new Map<Hex, { number: bigint; index: number }>()
  let finalizedAtHead = false

  function index(sealed: SealedBlock) {
    blocks.add(sealed)
    for (const [i, tx] of sealed.block.transactions.entries()) {
      txIndex.set(bytesToHex(tx.hash()) as Hex, { number: sealed.number, index: i })
    }
  }

  let trie
  if (store.isEmpty()) {
    const diff = allocDiff(spec.alloc)
    history.commit(0n, diff)
    trie = await createStateTrie(history.entries())
    for (const [address, account] of diff.accounts) {
      if (account !== null && diff.storage.has(address)) diff.accounts.set(address, { ...account, storageRoot: trie.storageRoot(address) })
    }
    history.commit(0n, diff)
    const genesis = createBlock({ header: { ...spec.header, stateRoot: trie.root() } }, { common, setHardfork: true })
    const sealed: SealedBlock = { block: genesis, hash: bytesToHex(genesis.hash()) as Hex, number: 0n, senders: [], receipts: [] }
    store.writeBlock({ number: 0n, hash: sealed.hash, rlp: genesis.serialize(), receipts: [], senders: [], transactionHashes: [] }, diff)
    // Chain ids past 2^53 are bigints here; they are written back as the plain JSON numbers they came as.
    store.setMeta('genesis', JSON.stringify(genesisJSON, (_key, value) => (typeof value === 'bigint' ? rawJSON(value.toString()) : value)))
    index(sealed)
  } else {
    for (const stored of store.blocks()) {
      const block = createBlockFromRLP(stored.rlp, { common, setHardfork: true })
      index({ block, hash: bytesToHex(block.hash()) as Hex, number: stored.number, senders: stored.senders, receipts: stored.receipts })
    }
    store.loadState(history)
    trie = await createStateTrie(history.entries())
    const head = blocks.head()
    if (!equalsBytes(trie.root(), head.block.header.stateRoot)) {
      log(`warning: rebuilt state root ${bytesToHex(trie.root())} differs from block ${head.number}'s`)
    }
    finalizedAtHead = store.getMeta('finalizedAtHead') === 'true'
  }

  const head = () => blocks.head()
  const blockHashes = (number: bigint) => blocks.hash(number)
  const runner = await createCallRunner({ common, blockHashes, rpcGasCap, revertCode })
  const { executor } = runner
  /** Started once the chain is loaded (and imported); until then nothing reads it. */
  let executionPool: ExecutionPool | undefined
  const answers = createAnswerCache()
  const pool = createPool()

  const producerCommon = common.copy()
  const stateManager = new FlatStateManager(history.at(head().number))
  const vm = await createVM({ common: producerCommon, stateManager, blockchain: createBlockchain(blockHashes) })

  function forget(entry: PoolTransaction, reason: string) {
    pool.remove(entry.hash)
    store.removePoolTransactions([entry.hash])
    log(`dropped ${entry.hash} from the pool: ${reason.replace(/ \(.*$/s, '')}`)
  }

  const producer = createProducer({
    common: producerCommon,
    vm,
    stateManager,
    history,
    trie,
    pool,
    blockGasLimit: () => (options.genesis === undefined ? (options.blockGasLimit ?? spec.header.gasLimit as bigint) : head().block.header.gasLimit),
    head,
    commitBlock(sealed, diff) {
      history.commit(sealed.number, diff)
      executionPool?.commitBlock(sealed.number, sealed.block.hash(), diff)
      store.writeBlock(
        {
          number: sealed.number,
          hash: sealed.hash,
          rlp: sealed.block.serialize(),
          receipts: sealed.receipts,
          senders: sealed.senders,
          transactionHashes: sealed.block.transactions.map((tx) => bytesToHex(tx.hash()) as Hex),
        },
        diff,
      )
      index(sealed)
    },
    dropTransaction: forget,
    log,
  })

  function resolve(specifier: BlockSpecifier): ResolvedBlock {
    if (typeof specifier === 'bigint') {
      const block = blocks.byNumber(specifier)
      if (block === undefined) throw new BlockNotFoundError(`0x${specifier.toString(16)}`)
      return { kind: 'sealed', block }
    }
    if (typeof specifier === 'object') {
      const block = blocks.byHash(specifier.blockHash)
      if (block === undefined) throw new BlockNotFoundError(specifier.blockHash)
      return { kind: 'sealed', block }
    }
    switch (specifier) {
      case 'pending':
        return { kind: 'pending', block: producer.pending() }
      case 'latest':
        return { kind: 'sealed', block: head() }
      case 'earliest':
        return { kind: 'sealed', block: blocks.byNumber(0n)! }
      case 'safe':
      case 'finalized': {
        const number = finalizedAtHead ? head().number : head().number - CONFIRMATION_DEPTH[specifier]
        return { kind: 'sealed', block: blocks.byNumber(number > 0n ? number : 0n)! }
      }
    }
  }

  // One environment object per sealed block, so the executor's per-environment caches hit across requests.
  const envs = new WeakMap<SealedBlock, BlockEnv>()
  function viewAt(specifier: BlockSpecifier): ExecutionView {
    return viewOf(resolve(specifier))
  }

  function viewOf(resolved: ResolvedBlock): ExecutionView {
    if (resolved.kind === 'pending') return { env: resolved.block.env, state: resolved.block.state }
    let env = envs.get(resolved.block)
    if (env === undefined) envs.set(resolved.block, (env = headerEnv(resolved.block.block)))
    return { env, state: history.at(resolved.block.number) }
  }

  const forks = createForks(common)

  /** One frozen-in-time Common per hardfork, for decoding and signing transactions of a given block. */
  const commons = new Map<string, Common>()
  function commonAt(env: BlockEnv): Common {
    const hardfork = forks.at(env).hardfork()
    let fork = commons.get(hardfork)
    if (fork === undefined) {
      fork = common.copy()
      fork.setHardfork(hardfork)
      commons.set(hardfork, fork)
    }
    return fork
  }

  function nextNonce(address: Hex): bigint {
    const stateNonce = producer.pending().state.account(address)?.nonce ?? 0n
    return pool.nextNonce(address, stateNonce)
  }

  async function admit(tx: TypedTransaction, raw: Uint8Array): Promise<Hex> {
    const hash = bytesToHex(tx.hash()) as Hex
    if (txIndex.has(hash) || pool.get(hash) !== undefined || pendingPosition(producer.pending(), hash) !== undefined) {
      throw txErrors.alreadyKnown()
    }
    if (tx.supports(Capability.EIP155ReplayProtection) && tx.common.chainId() !== chainId) {
      throw txErrors.invalidChainId(chainId, tx.common.chainId())
    }
    let sender: Hex
    try {
      sender = tx.getSenderAddress().toString() as Hex
    } catch (error) {
      throw txErrors.invalidSender(error instanceof Error ? error.message : String(error))
    }
    const pending = producer.pending()
    if (tx.gasLimit > pending.env.gasLimit) throw txErrors.exceedsBlockGasLimit()
    const cap = forks.txGasCap(pending.env)
    if (cap !== undefined && tx.gasLimit > cap) throw txErrors.gasLimitTooHigh(cap, tx.gasLimit)
    const intrinsic = tx.getIntrinsicGas()
    if (tx.gasLimit < intrinsic) throw txErrors.intrinsicGasTooLow(tx.gasLimit, intrinsic)
    const floor = getMinimumGasLimit(tx)
    if (tx.gasLimit < floor) throw txErrors.floorDataGas(tx.gasLimit, floor)

    const account: AccountRecord | undefined = pending.state.account(sender)
    const stateNonce = account?.nonce ?? 0n
    if (tx.nonce < stateNonce) throw txErrors.nonceTooLow(sender, tx.nonce, stateNonce)
    const balance = account?.balance ?? 0n
    const cost = tx.getUpfrontCost()
    const maxCost = 'maxFeePerGas' in tx ? tx.gasLimit * tx.maxFeePerGas + tx.value : cost
    if (balance < maxCost) throw txErrors.insufficientFunds(sender, balance, maxCost)
    if (account !== undefined && !equalsBytes(account.codeHash, KECCAK256_NULL)) {
      const code = pending.state.code(bytesToHex(account.codeHash) as Hex) ?? EMPTY
      // EIP-3607, relaxed by EIP-7702 for delegated accounts.
      if (!(code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00)) throw txErrors.senderNotEOA(sender)
    }

    const replaced = pool.add({ tx, hash, sender, raw, nonceAfter: nonceAfter(tx, sender) })
    // Durable before the hash is returned: a crash after this line loses nothing.
    store.addPoolTransaction(hash, raw)
    if (replaced !== undefined) store.removePoolTransactions([replaced.hash])
    return hash
  }

  /** EIP-7702: each valid authorization the sender signs for itself bumps its nonce once more. */
  function nonceAfter(tx: TypedTransaction, sender: Hex): bigint {
    let next = tx.nonce + 1n
    if (!tx.supports(Capability.EIP7702EOACode)) return next
    for (const authorization of (tx as unknown as { authorizationList: Uint8Array[][] }).authorizationList) {
      const [authChainId, , nonce] = authorization
      const chainMatches = authChainId!.length === 0 || bytesToBigInt(authChainId!) === chainId
      if (!chainMatches || bytesToBigInt(nonce!) !== next) continue
      try {
        if (eoaCode7702RecoverAuthority(authorization as never).toString() === sender) next++
      } catch {
        // An authorization that does not recover is skipped by execution too.
      }
    }
    return next
  }

  function decode(raw: Uint8Array): TypedTransaction {
    try {
      const options = { common: commonAt(producer.pending().env), allowUnlimitedInitCodeSize: false }
      // A blob transaction arrives in its network form, with blobs, commitments and proofs (EIP-4844, EIP-7594).
      if (raw[0] === 3 && Array.isArray(RLP.decode(raw.subarray(1))[0])) return createBlob4844TxFromSerializedNetworkWrapper(raw, options)
      return createTxFromRLP(raw, options)
    } catch (error) {
      throw decodeError(error instanceof Error ? error.message : String(error), producer.pending().env)
    }
  }

  /** ethereumjs refuses some transactions while decoding them; clients expect geth's words for those. */
  function decodeError(message: string, env: BlockEnv): RpcError {
    let match: RegExpMatchArray | null
    if ((match = message.match(/not matching the derived chain ID (\d+)/)) !== null) return txErrors.invalidChainId(chainId, BigInt(match[1]!))
    if ((match = message.match(/Incompatible EIP155-based V (\d+)/)) !== null) {
      return txErrors.invalidChainId(chainId, (BigInt(match[1]!) - 35n) / 2n)
    }
    if ((match = message.match(/Transaction gas limit (\d+) exceeds the maximum allowed by EIP-7825/)) !== null) {
      const gas = BigInt(match[1]!)
      return gas > env.gasLimit ? txErrors.exceedsBlockGasLimit() : txErrors.gasLimitTooHigh(EIP7825_TX_GAS_CAP, gas)
    }
    if (/not activated|not supported|Unknown tx type|TypedTransaction with ID \d+ unknown/i.test(message)) return txErrors.typeNotSupported()
    // Anything else is malformed input; its first line says what, without the library's context.
    return new TransactionRejectedError(`invalid transaction: ${message.split('\n')[0]!.replace(/ \(.*$/s, '')}`)
  }

  if (options.importBlocks !== undefined) {
    const imported = await importBlocks(options.importBlocks)
    // An imported chain is final: there is no consensus layer to disagree with it.
    finalizedAtHead = true
    store.setMeta('finalizedAtHead', 'true')
    log(`imported ${imported} blocks; head is block ${head().number} ${head().hash}`)
  }

  /** Back-to-back RLP blocks. Blocks already on the chain are skipped, so a restart can pass the same file. */
  async function importBlocks(bytes: Uint8Array): Promise<number> {
    let rest = bytes
    let imported = 0
    while (rest.length > 0) {
      let block
      try {
        const decoded = RLP.decode(rest, true)
        rest = decoded.remainder
        block = createBlockFromBytesArray(decoded.data as never, { common, setHardfork: true })
      } catch (error) {
        throw new Error(`import: cannot decode the block after block ${head().number}: ${error instanceof Error ? error.message : error}`)
      }
      const existing = blocks.hash(block.header.number)
      if (existing !== undefined) {
        if (!equalsBytes(existing, block.hash())) {
          throw new Error(`import: block ${block.header.number} differs from the one already on this chain (${bytesToHex(existing)})`)
        }
        continue
      }
      try {
        await producer.importBlock(block)
      } catch (error) {
        throw new Error(`import: ${error instanceof Error ? error.message : error}`)
      }
      imported++
    }
    return imported
  }

  // Transactions whose hash was returned before a restart are back in the pool, in arrival order.
  for (const raw of store.poolTransactions()) {
    try {
      await admit(decode(raw), raw)
    } catch (error) {
      const tx = decode(raw)
      store.removePoolTransactions([bytesToHex(tx.hash()) as Hex])
      log(`dropped a stored pool transaction: ${error instanceof Error ? error.message : error}`)
    }
  }

  const workers = options.workers ?? defaults.workers
  if (workers > 0) {
    const genesisText = store.getMeta('genesis')!
    executionPool = createExecutionPool({
      size: workers,
      init: () => ({
        genesis: genesisText,
        history: history.snapshot(),
        blockHashes: blocks.hashes(),
        rpcGasCap,
        revertCode,
      }),
      log,
    })
  }

  if (mining === 'interval') {
    producer.start({
      blockTime: options.blockTime ?? defaults.blockTime,
      flashblockInterval: options.flashblockInterval ?? defaults.flashblockInterval,
    })
  }

  const chain: Chain = {
    chainId,
    common,
    revertCode,
    accounts,
    mining,
    head,
    resolve,
    numberOf(specifier) {
      if (typeof specifier === 'bigint') {
        if (specifier >= BigInt(blocks.count)) throw new BlockNotFoundError(`0x${specifier.toString(16)}`)
        return specifier
      }
      if (typeof specifier === 'object') {
        const number = blocks.numberOf(specifier.blockHash)
        if (number === undefined) throw new BlockNotFoundError(specifier.blockHash)
        return number
      }
      const resolved = resolve(specifier)
      return resolved.kind === 'pending' ? resolved.block.env.number : resolved.block.number
    },
    stateAt: (specifier) => viewAt(specifier).state,
    blockByNumber: (number) => blocks.byNumber(number),
    blockByHash: (hash) => blocks.byHash(hash),

    findTransaction(hash) {
      const key = hash.toLowerCase() as Hex
      const located = txIndex.get(key)
      if (located !== undefined) {
        const block = blocks.byNumber(located.number)!
        return {
          kind: 'sealed',
          tx: block.block.transactions[located.index]!,
          sender: block.senders[located.index]!,
          index: located.index,
          block,
          receipt: block.receipts[located.index]!,
          logIndex: firstLogIndex(block.receipts, located.index),
        }
      }
      const pending = producer.pending()
      const position = pendingPosition(pending, key)
      if (position !== undefined) {
        return {
          kind: 'preconfirmed',
          tx: pending.transactions[position]!,
          sender: pending.senders[position]!,
          index: position,
          block: pending,
          receipt: pending.receipts[position]!,
          logIndex: firstLogIndex(pending.receipts, position),
        }
      }
      const queued = pool.get(key)
      return queued === undefined ? undefined : { kind: 'pool', tx: queued.tx, sender: queued.sender }
    },

    nextNonce,

    async call(request, specifier, overrides = {}) {
      const resolved = resolve(specifier)
      if (hasOverrides(overrides)) return runner.call(request, withOverrides(viewOf(resolved), overrides))
      return (await answers.answer(resolved.block, 'eth_call', request, () => callOn(request, viewOf(resolved)))).value
    },

    async estimateGas(request, specifier, overrides = {}) {
      const resolved = resolve(specifier)
      if (hasOverrides(overrides)) return estimateOn(request, withOverrides(viewOf(resolved), overrides))
      const { value, hit } = await answers.answer(resolved.block, 'eth_estimateGas', request, () => estimateOn(request, viewOf(resolved)))
      if (hit) debug?.(`eth_estimateGas: ${value} from the answer cache`)
      return value
    },

    async estimateSequence(steps, specifier) {
      let view = viewAt(specifier)
      const plans: SequencePlan[] = []
      for (const { request, gas } of steps) {
        let plan: SequencePlan
        try {
          plan = gas !== undefined ? { gas, reverts: false } : { gas: await estimateOn(request, view), reverts: false }
        } catch (error) {
          if (!(error instanceof ExecutionRevertedError)) throw error
          // It will revert whatever its gas: give it what its failing run consumed, with the 1/64 it may forward.
          const hi = runner.ceiling(request, view)
          const { outcome } = await executor.execute(request, hi, view)
          const consumed = outcome.kind === 'invalid' ? hi : ((outcome.gasConsumed + CALL_STIPEND) * 64n) / 63n
          plan = { gas: consumed < hi ? consumed : hi, reverts: true }
        }
        const { outcome, writes } = await executor.execute(request, plan.gas, view)
        if (outcome.kind !== 'success') plan.reverts = true
        plans.push(plan)
        view = { env: view.env, state: createOverlay(writes, view.state) }
      }
      return plans
    },

    isActive: (eip) => forks.at(producer.pending().env).isActivatedEIP(eip),
    txGasCap: () => forks.txGasCap(producer.pending().env),

    async sendRawTransaction(raw) {
      return admit(decode(raw), raw)
    },

    preconfirm: () => producer.preconfirm(),
    mine: (options) => producer.seal(options),
    waitForPreconfirmation: (hash, timeoutMs) => producer.waitForPreconfirmation(hash, timeoutMs),

    getLogs(filter) {
      const found: FoundLog[] = []
      const last = filter.toBlock < head().number ? filter.toBlock : head().number
      const query = bloomQuery(filter)
      for (let number = filter.fromBlock; number <= last; number++) {
        const bloom = blocks.logsBloom(number)
        if (bloom === undefined || !bloomMayMatch(new Bloom(bloom, common), query)) continue
        collectLogs(blocks.logs(number)!, filter, found)
      }
      if (filter.includePending === true) {
        const { env, transactions, receipts } = producer.pending()
        const transactionHash = (index: number) => bytesToHex(transactions[index]!.hash()) as Hex
        collectLogs({ number: env.number, hash: null, timestamp: env.timestamp, receipts, transactionHash }, filter, found)
      }
      return found
    },

    get executionRuns() {
      return executor.runs + (executionPool?.runs ?? 0)
    },

    async close() {
      await producer.stop()
      await executionPool?.close()
      if (ownsDatabase) database.close()
    },
  }

  /** On an idle worker if there is one, else here; a worker that dies mid-run leaves the run to this thread. */
  async function onWorker(method: CallMethod, request: CallRequest, view: ExecutionView) {
    const remote = executionPool?.run(method, request, view)
    if (remote === undefined) return undefined
    try {
      return await remote
    } catch (error) {
      if (error instanceof WorkerGoneError) return undefined
      throw error
    }
  }

  async function callOn(request: CallRequest, view: ExecutionView): Promise<Uint8Array> {
    const remote = await onWorker('eth_call', request, view)
    return remote === undefined ? runner.call(request, view) : (remote.value as Uint8Array)
  }

  async function estimateOn(request: CallRequest, view: ExecutionView): Promise<bigint> {
    const remote = await onWorker('eth_estimateGas', request, view)
    const estimate = remote === undefined ? await runner.estimate(request, view) : { gas: remote.value as bigint, runs: remote.runs }
    debug?.(`eth_estimateGas: ${estimate.gas} after ${estimate.runs} EVM runs`)
    return estimate.gas
  }

  return chain
}

/** JSON.rawJSON (Node 21+), not yet in TypeScript's lib: a JSON number of any size. */
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON

function hasOverrides(overrides: Overrides): boolean {
  return overrides.state !== undefined || overrides.block !== undefined
}

function firstLogIndex(receipts: Receipt[], position: number): number {
  let count = 0
  for (let i = 0; i < position; i++) count += receipts[i]!.logs.length
  return count
}

/** geth's rule: a log has at least as many topics as the filter has positions; null and [] there match any topic. */
function matchesTopics(topics: Hex[], filter: LogFilter['topics']): boolean {
  if (filter === undefined) return true
  if (filter.length > topics.length) return false
  return filter.every((wanted, i) => {
    if (wanted === null) return true
    return Array.isArray(wanted) ? wanted.length === 0 || wanted.includes(topics[i]!) : wanted === topics[i]
  })
}

function collectLogs(block: Omit<BlockLogs, 'hash'> & { hash: Hex | null }, filter: LogFilter, found: FoundLog[]) {
  let logIndex = 0
  for (const [i, receipt] of block.receipts.entries()) {
    for (const entry of receipt.logs) {
      const matches =
        (filter.addresses === undefined || filter.addresses.length === 0 || filter.addresses.includes(entry.address)) &&
        matchesTopics(entry.topics, filter.topics)
      if (matches) {
        found.push({
          ...entry,
          blockNumber: block.number,
          blockHash: block.hash,
          blockTimestamp: block.timestamp,
          transactionHash: block.transactionHash(i),
          transactionIndex: i,
          logIndex,
        })
      }
      logIndex++
    }
  }
}
