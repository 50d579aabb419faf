/**
 * What the chain hands to the layers above it: blocks, transactions, receipts and logs as plain data, with numbers
 * as bigints and bytes as lowercase hex. Nothing here is an @ethereumjs class, so the RPC and the wallet never walk
 * an EVM library's objects.
 */
import type { L1FeeParams } from './opstack/l1Cost.ts'
import type { Hex } from '../hex.ts'
import type { FlashblockAccessList } from './state/accesses.ts'
import type { StateDiff } from './state/types.ts'

export type BlockTag = 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest'

/** A block as a request names it: a tag, a number, or an EIP-1898 hash. */
export type BlockSpecifier = BlockTag | bigint | { blockHash: Hex; requireCanonical?: boolean }

export type Log = { address: Hex; topics: Hex[]; data: Hex }

/** What execution decided about one transaction; positions and hashes come from the block that holds it. */
export type Receipt = {
  /** 1 success, 0 failure. Absent before Byzantium, where `root` is set instead. */
  status?: 0 | 1
  root?: Hex
  cumulativeGasUsed: bigint
  gasUsed: bigint
  logs: Log[]
  logsBloom: Hex
  contractAddress: Hex | null
  effectiveGasPrice: bigint
  blobGasUsed?: bigint
  blobGasPrice?: bigint
  /**
   * How it failed, for the node's log (activity/decoder.ts words it); only while the node that ran it lives:
   * neither the wire nor the store carries it.
   */
  failure?: Failure
  /**
   * The data of each call it made to console.sol's address (Hardhat's console.log), in order, failed frames'
   * included; collected only while the node logs, and kept as `failure` is.
   */
  consoleCalls?: Hex[]
  /** An OP Stack deposit's: its sender's nonce before it ran, and the receipt's version (1, as from Canyon). */
  depositNonce?: bigint
  depositReceiptVersion?: number
  /** On an OP Stack chain, what any other transaction paid for L1 data and to the operator, and from which values. */
  l1Fee?: L1Fee
}

/**
 * The L1 data fee a transaction paid on an OP Stack chain (Fjord's formula on its signed envelope), the values in
 * L1Block it was computed from, and the operator fee's parameters (op-geth's receipt fields).
 */
export type L1Fee = L1FeeParams & {
  fee: bigint
  /** Fjord's estimated size × 16 (the receipt's l1GasUsed). */
  gasUsed: bigint
}

/** How a transaction failed: the EVM's halt (`revert`, `out of gas`, `invalid opcode`…) and what it returned. */
export type Failure = { halt: string; data: Hex }

export type AccessListEntry = { address: Hex; storageKeys: Hex[] }

/** An EIP-7702 authorization as a transaction carries it. */
export type Authorization = { chainId: bigint; address: Hex; nonce: bigint; yParity: number; r: bigint; s: bigint }

/**
 * A transaction to sign, as the wallet fills it: its type by name and the fields it carries (the names and units
 * viem's TransactionSerializable uses, so the same object serializes either way).
 */
export type UnsignedTransaction = {
  type: 'legacy' | 'eip2930' | 'eip1559' | 'eip7702'
  chainId: number
  nonce: number
  /** Absent: a contract creation. */
  to?: Hex | null | undefined
  value?: bigint | undefined
  data?: Hex | undefined
  gas: bigint
  gasPrice?: bigint | undefined
  maxFeePerGas?: bigint | undefined
  maxPriorityFeePerGas?: bigint | undefined
  accessList?: readonly AccessListEntry[] | undefined
  /** EIP-7702's, signed: r and s as quantities. */
  authorizationList?: readonly { address: Hex; chainId: number; nonce: number; yParity: number; r: Hex; s: Hex }[] | undefined
}

/** A signed transaction; the fields of its type are set, the others undefined. */
export type Transaction = {
  hash: Hex
  type: number
  /** Undefined only for a legacy transaction without EIP-155 replay protection. */
  chainId: bigint | undefined
  nonce: bigint
  from: Hex
  to: Hex | null
  value: bigint
  input: Hex
  gas: bigint
  /** Types 0 and 1. */
  gasPrice: bigint | undefined
  /** Types 2, 3 and 4. */
  maxFeePerGas: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  /** Type 3. */
  maxFeePerBlobGas: bigint | undefined
  blobVersionedHashes: Hex[] | undefined
  /** Types 1 to 4. */
  accessList: AccessListEntry[] | undefined
  /** Type 4. */
  authorizationList: Authorization[] | undefined
  v: bigint
  r: bigint
  s: bigint
  /** An OP Stack deposit's (type 0x7e): where it came from, the wei it minted, and whether it is a system transaction. */
  deposit?: { sourceHash: Hex; mint: bigint; isSystemTx: boolean }
}

/** A sealed block's header, with the fields of its fork. */
export type BlockHeader = {
  number: bigint
  parentHash: Hex
  sha3Uncles: Hex
  miner: Hex
  stateRoot: Hex
  transactionsRoot: Hex
  receiptsRoot: Hex
  logsBloom: Hex
  difficulty: bigint
  gasLimit: bigint
  gasUsed: bigint
  timestamp: bigint
  extraData: Hex
  mixHash: Hex
  nonce: Hex
  baseFeePerGas?: bigint
  withdrawalsRoot?: Hex
  blobGasUsed?: bigint
  excessBlobGas?: bigint
  parentBeaconBlockRoot?: Hex
  requestsHash?: Hex
}

export type Withdrawal = { index: bigint; validatorIndex: bigint; address: Hex; amount: bigint }

export type Block = {
  kind: 'sealed'
  hash: Hex
  header: BlockHeader
  /** Bytes of the block's RLP encoding. */
  size: bigint
  /** The transactions' hashes, which a block with hashes only reads without decoding its transactions. */
  transactionHashes: readonly Hex[]
  transactions: readonly Transaction[]
  receipts: readonly Receipt[]
  withdrawals: readonly Withdrawal[] | undefined
  uncles: readonly Hex[]
}

/** The environment of a block: what execution needs to know about it, apart from the hashes of older blocks. */
export type BlockEnv = {
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  baseFeePerGas: bigint | undefined
  coinbase: Hex
  prevRandao: Hex
  excessBlobGas: bigint | undefined
  parentHash: Hex
  parentBeaconBlockRoot: Hex | undefined
}

/**
 * The block being built, as of its newest flashblock: its environment, what has been pre-confirmed so far, and the
 * header and hash it would seal with if nothing else arrived (Base's `diff.block_hash`; docs/chain.md).
 */
export type PendingBlock = {
  kind: 'pending'
  env: BlockEnv
  /** -1 before the block's first flashblock. */
  flashblockIndex: number
  hash: Hex
  header: BlockHeader
  size: bigint
  transactions: readonly Transaction[]
  receipts: readonly Receipt[]
  withdrawals: readonly Withdrawal[] | undefined
  uncles: readonly Hex[]
}

/** Where a block puts a transaction, for the fields a transaction, receipt or log reports of it. */
export type BlockPosition = { hash: Hex; number: bigint; timestamp: bigint; baseFeePerGas: bigint | undefined }

/** Where a transaction is: sealed in a block, pre-confirmed in the pending block, or waiting in the pool. */
export type TransactionLocation =
  | { kind: 'sealed' | 'preconfirmed'; transaction: Transaction; block: BlockPosition; index: number; receipt: Receipt; logIndex: number }
  | { kind: 'pool'; transaction: Transaction }

/** Logs in [fromBlock, toBlock]; an empty address list, and null or [] at a topic position, match anything. */
export type LogFilter = {
  fromBlock: bigint
  toBlock: bigint
  addresses?: Hex[]
  topics?: (Hex | Hex[] | null)[]
  /** Also the logs of the pre-confirmed transactions (toBlock "pending"). */
  includePending?: boolean
  /**
   * At most this many logs: past it, a LimitExceededError, "query exceeds max results N, retry with the range A-B"
   * (reth's words, with the blocks whose logs fit), found without holding more than one block past the cap.
   */
  maxResults?: number
}

export type FoundLog = Log & {
  blockNumber: bigint
  /** For a log of a pre-confirmed transaction, the hash of its block as of the newest flashblock. */
  blockHash: Hex
  blockTimestamp: bigint
  transactionHash: Hex
  transactionIndex: number
  logIndex: number
}

/** eth_feeHistory's answer (EIP-1559, EIP-4844), one entry per block and one more for the block after the range. */
export type FeeHistory = {
  oldestBlock: bigint
  baseFeePerGas: bigint[]
  gasUsedRatio: number[]
  baseFeePerBlobGas: bigint[]
  blobGasUsedRatio: number[]
  /** Per block, the tip at each requested percentile of its gas. */
  reward?: bigint[][]
}

/**
 * The pool's transactions, each list by sender, then nonce: `pending` those the next flashblock can take, `queued`
 * those waiting behind a nonce gap.
 */
export type PoolContent = { pending: Transaction[]; queued: Transaction[] }

/** What a transaction to be sent after others will need: its gas, and whether it is known to revert. */
export type SequencePlan = { gas: bigint; reverts: boolean }

/**
 * What the chain announces as it happens, for subscriptions and filters. Announced in order, after the writer's
 * step is done, so a listener never holds up block production.
 */
export type ChainEvent =
  /** A transaction entered the pool. */
  | { type: 'poolTransaction'; transaction: Transaction }
  /**
   * A flashblock was published: the pending block as of it, and which of its transactions are new (from `first`
   * on), with their logs.
   */
  | { type: 'flashblock'; block: PendingBlock; first: number; logs: FoundLog[] }
  /** A block was sealed, with its logs in order. */
  | { type: 'sealed'; block: Block; logs: FoundLog[] }

/**
 * One flashblock as the flashblocks stream carries it: what is new in it, and the block as if it were sealed right
 * after it. The last flashblock of a block carries exactly the sealed block's roots and hash.
 */
export type Flashblock = {
  number: bigint
  index: number
  /** The block's environment (the stream sends it with index 0). */
  env: BlockEnv
  extraData: Hex
  /**
   * The transactions new in this flashblock: raw EIP-2718 bytes, hash, type and receipt, and for one sent as an
   * impersonated account (whose signature recovers someone else), who it is from.
   */
  transactions: { raw: Hex; hash: Hex; type: number; receipt: Receipt; impersonated?: Hex }[]
  /** The flashblock that ends its block: the block is sealed with these roots and hash. */
  sealed: boolean
  /** Every account this flashblock wrote, with its balance after it. */
  balances: [Hex, bigint][]
  /**
   * What each of its runs read and changed (Base's flashblock access list, EIP-7928's shape); none in a block begun
   * while the stream had no reader.
   */
  accessList: FlashblockAccessList | undefined
  /** The test-control changes since the flashblock before, oldest first: what a replica cannot learn from blocks. */
  edits: ChainEdit[]
  /**
   * Its place among the frames the stream sent since the node started, from 0, one more for each: a reader sees a
   * frame it missed, or one out of order, by this alone, across blocks, reverts and resets.
   */
  sequence: number
  stateRoot: Hex
  receiptsRoot: Hex
  logsBloom: Hex
  gasUsed: bigint
  blockHash: Hex
  withdrawalsRoot: Hex | undefined
  blobGasUsed: bigint | undefined
}

/** A flashblock as the producer builds it: the chain adds the test-control changes made since the one before. */
export type BuiltFlashblock = Omit<Flashblock, 'edits' | 'sequence'>

/**
 * A test-control change to the chain, as the flashblocks stream tells it (docs/flashblocks-stream.md#test-control):
 * - `edit`: block `number`'s state took `latest` in place (anvil_setBalance and the like), and the block being built,
 *   if one is, took `pending` (the same edit applied to its own values);
 * - `rewind`: the blocks after `number` are gone (evm_revert), and `writes` take block `number`'s state back to what
 *   it was when the snapshot was taken;
 * - `reset`: the chain is back to its first block, `number` with hash `hash` (anvil_reset), or a fork's new one.
 */
export type ChainEdit =
  | { kind: 'edit'; number: bigint; latest: StateDiff; pending: StateDiff | undefined }
  | { kind: 'rewind'; number: bigint; writes: StateDiff }
  | { kind: 'reset'; number: bigint; hash: Hex }

/** One fork's rules as EIP-7910 describes them. */
export type ForkConfig = {
  /** Unix seconds; 0 for a fork in force at genesis. */
  activationTime: bigint
  /** EIP-4844's blob parameters in that fork (EIP-7840); null before Cancun. */
  blobSchedule: { target: number; max: number; baseFeeUpdateFraction: number } | null
  chainId: bigint
  /** EIP-6122's fork hash, 4 bytes. */
  forkId: Hex
  /** Address of each precompile, by geth's name for it. */
  precompiles: Record<string, Hex>
  /** Address of each system contract, by its EIP's name for it. */
  systemContracts: Record<string, Hex>
}

/** EIP-7910 (eth_config): the fork in force at the head, the next scheduled one, and the last one scheduled. */
export type ChainConfig = { current: ForkConfig | null; next: ForkConfig | null; last: ForkConfig | null }

/** EIP-1186 (eth_getProof): an account and some of its slots, with the Merkle proofs of each against a state root. */
export type AccountProof = {
  address: Hex
  /** Undefined when the account does not exist: the account proof then shows its absence. */
  account: { nonce: bigint; balance: bigint; codeHash: Hex; storageHash: Hex } | undefined
  /** The nodes from the state root down the account's path, RLP-encoded. */
  accountProof: Hex[]
  /** Each slot's value and the nodes from the account's storage root down its path (none without storage). */
  storageProof: { slot: Hex; value: bigint; proof: Hex[] }[]
}

/** eth_createAccessList's answer: the list, the gas the transaction uses with it, and why it failed if it did. */
export type AccessListResult = { accessList: AccessListEntry[]; gasUsed: bigint; error?: string }

/** One call of eth_simulateV1, as its block ran it: its logs carry the simulated block's hash. */
export type SimulatedCall = {
  status: 0 | 1
  returnData: Hex
  gasUsed: bigint
  /** Gas the call consumed before refunds: the least gas limit that runs it the same way. */
  maxUsedGas: bigint
  logs: FoundLog[]
  /** Code 3 and the revert data for a revert, -32015 for any other halt. */
  error?: { code: number; message: string; data?: Hex }
}

/** A block eth_simulateV1 built, and what each of its calls did. */
export type SimulatedBlock = { block: Block; calls: SimulatedCall[] }
