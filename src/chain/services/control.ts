import { randomBytes } from 'node:crypto'

import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'

import { isDeposit } from '../opstack/deposit.ts'
import { erc20Word, findERC20Slot } from '../execution/erc20Slot.ts'
import { loadDump } from '../state/dump.ts'
import { readBack, setStorage } from '../state/edits.ts'
import { createTouchedKeys } from '../state/history.ts'
import { createOverlay } from '../state/overlay.ts'
import { EMPTY_ACCOUNT, createStateDiff } from '../state/types.ts'
import { withStorageRoots } from '../state/trie.ts'
import { RefusedError } from '../errors.ts'

import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { BlockResolver } from '../blocks/tags.ts'
import type { Calls } from '../execution/calls.ts'
import type { ERC20Getter } from '../execution/erc20Slot.ts'
import type { ChainClock, ClockSettings } from '../production/clock.ts'
import type { Producer } from '../production/producer.ts'
import type { Pool, PoolTransaction } from '../production/txpool.ts'
import type { StateDump } from '../state/dump.ts'
import type { StateEdit } from '../state/edits.ts'
import type { StateHistory, TouchedKeys, UndoneEdit } from '../state/history.ts'
import type { ForkTarget } from '../fork/fork.ts'
import type { FirstBlock } from '../storage/load.ts'
import type { SealedBlock } from '../blocks/types.ts'
import type { StateDiff, StateReader } from '../state/types.ts'

/**
 * A fork opened at another block, not yet the chain's: its first block and writes, and the upstream's state beneath
 * them. `adopt` makes it the chain's fork (inside the store's transaction).
 */
export type Refork = { sealed: SealedBlock; diff: StateDiff; upstream: StateReader & { waits: true }; adopt(): void }
import type { StateTrie } from '../state/trie.ts'
import type { Hex } from '../../hex.ts'
import type { ChainEdit } from '../types.ts'
import type { ChainStore, StoreMark } from '../storage/chainStore.ts'

/**
 * What evm_snapshot keeps: where the sealed chain and its stored state writes end, the block being built (its
 * transactions, to build it again), the pool, the clock, and what each participant captured beside it (the
 * wallet's state). Nothing here survives a restart.
 */
type Snapshot = {
  head: bigint
  mark: StoreMark
  /** How many edits had been made when it was taken (the edit log's length). */
  edits: number
  building: { timestamp: bigint; transactions: PoolTransaction[] } | undefined
  pool: PoolTransaction[]
  clock: ClockSettings
  /** Each participant's restore, holding what it captured. */
  participants: (() => void)[]
}

/**
 * State kept beside the chain's that snapshots, reverts and resets take along (the wallet's batches, watched tokens
 * and impersonated accounts). `restore` and `reset` run inside the store's transaction that rewinds the chain, so
 * the chain and the participant go back together or not at all.
 */
export type Participant<Saved> = {
  /** What a snapshot keeps, taken at the same moment as the chain's. */
  capture(): Saved
  /** Back to what `capture` returned, on a revert to that snapshot. */
  restore(saved: Saved): void
  /** Back to how a reset leaves it. */
  reset(): void
}

export type ControlParts = {
  store: ChainStore
  history: StateHistory
  trie: StateTrie
  blocks: SealedBlocks
  producer: Producer
  pool: Pool
  clock: ChainClock
  calls: Calls
  resolver: BlockResolver
  /** The first block's state (block 0's, or a fork's fork block's), computed again, for a reset. */
  genesis: () => Promise<FirstBlock>
  /** A fork's move to another fork block or upstream (ControlService.reset); undefined on a chain of its own. */
  refork?: (target: ForkTarget) => Promise<Refork>
  /** Each change made, once it is made, for the flashblocks stream to tell (ChainEdit). */
  changed: (edit: ChainEdit) => void
  log: (line: string) => void
}

/**
 * Test control: the methods that change the chain in place rather than by a block: state edits (anvil_setBalance
 * and the like), snapshots and reverts (evm_snapshot, evm_revert), and reset (anvil_reset). Each runs on the
 * producer's queue, so none interleaves with a flashblock or a seal, and each is written to the store in one
 * transaction before memory changes.
 */
export type ControlService = {
  /**
   * Changes state in place, visible at once through `latest` and `pending`, without producing a block
   * (anvil_setBalance and the like): applies an edit to the head's state and to the pending state. The latest
   * block's state root no longer describes its state afterwards.
   */
  edit(edit: StateEdit): Promise<void>
  /**
   * A replica's copy of a change its sequencer made (a ChainEdit of the flashblocks stream; docs/scaling-out.md): an
   * edit's writes at latest and pending, a rewind to a block with the writes that take its state back, a reset to
   * the first block. False when the change does not follow from this chain (an edit of another block than the head,
   * a rewind past it, a first block with another hash): the replica then starts again from the sequencer's state.
   * `stored`: the chain was loaded from a snapshot that holds the change already; only what an edit did to the block
   * being built, which no store holds, is applied.
   */
  follow(change: ChainEdit, stored?: boolean): Promise<boolean>
  /** Takes a snapshot, with what each participant captures at the same moment. */
  snapshot(): Promise<bigint>
  /**
   * Goes back to a snapshot, forgetting it and every later one (Hardhat's semantics). Each participant restores
   * what it captured, inside the store's transaction. False when there is no such snapshot.
   */
  revert(id: bigint): Promise<boolean>
  /**
   * Back to the first block as the chain was created (block 0, or a fork's fork block): every later block, edit,
   * pool transaction and snapshot is gone. Each participant resets inside the store's transaction. A fork given a
   * `target` forks again there instead (anvil_reset's `forking`); nothing changes if the upstream fails.
   */
  reset(target?: ForkTarget): Promise<void>
  /** The live snapshots, oldest first, with the block each was taken at. */
  snapshots(): { id: bigint; number: bigint }[]
  /** Takes part in every later snapshot, revert and reset. */
  participate<Saved>(participant: Participant<Saved>): void
  /**
   * Sets what an ERC20 getter answers (anvil_dealERC20's balanceOf, anvil_setERC20Allowance's allowance): finds the
   * slot the getter reads it from, and edits it at latest and pending. An invalid input when no slot holds the value whole.
   */
  setERC20(token: Hex, getter: ERC20Getter, amount: bigint): Promise<void>
  /** Loads a dump over the state, at latest and pending (anvil_loadState). */
  loadState(dump: StateDump): Promise<void>
  /** 32 random bytes naming this run of the chain; a reset draws new ones, as Hardhat's instanceId (hardhat_metadata). */
  readonly instanceId: Hex
}

/**
 * A sequencer's writes as records of this chain: the stream carries no storage roots, so each account keeps the one
 * it has here (the trie gives the new one where its storage changed; withStorageRoots).
 */
function sequencerRecords(writes: StateDiff, before: StateReader): StateDiff {
  const diff: StateDiff = { accounts: new Map(), storage: writes.storage, code: writes.code }
  for (const [address, account] of writes.accounts) {
    diff.accounts.set(
      address,
      account === null ? null : { ...account, storageRoot: before.account(address)?.storageRoot ?? EMPTY_ACCOUNT.storageRoot },
    )
  }
  return diff
}

/** A participant with its saved state's type closed over: capturing returns what restores it. */
type Joined = { capture(): () => void; reset(): void }

export function createControlService(parts: ControlParts): ControlService {
  const { store, history, trie, blocks, producer, pool, clock } = parts
  const snapshots = new Map<bigint, Snapshot>()
  const participants: Joined[] = []
  let nextId = 1n
  /** Every edit since the oldest live snapshot, oldest first: what a revert takes back. */
  const edits: UndoneEdit[] = []
  const newInstanceId = () => bytesToHex(randomBytes(32)) as Hex
  let instanceId = newInstanceId()

  /**
   * Memory follows the store: the history (and with it the workers' replicas and the answer cache), the blocks and
   * the pool. Returns the keys that changed, for the trie to move back by those alone.
   */
  function rewindTo(number: bigint, undone: UndoneEdit[], entries: PoolTransaction[]): TouchedKeys {
    const touched = createTouchedKeys()
    history.apply({ kind: 'rewind', number, undo: undone }, touched)
    blocks.truncate(number < blocks.first ? blocks.first : number)
    for (const entry of [...pool.all()]) pool.remove(entry.hash)
    for (const entry of entries) pool.add(entry)
    return touched
  }

  /** Another fork block's state beneath the chain, and that block as its only one. */
  async function refork(target: ForkTarget) {
    if (parts.refork === undefined) throw new RefusedError('this chain is not a fork')
    // Everything that can fail (the upstream) before anything changes.
    const next = await parts.refork(target)
    const { sealed, diff } = next
    snapshots.clear()
    edits.length = 0
    store.replace({ number: sealed.number, hash: sealed.hash, rlp: sealed.block.serialize(), receipts: [], senders: [] }, diff, () => {
      for (const participant of participants) participant.reset()
      next.adopt()
    })
    history.apply({ kind: 'rewind', number: -1n, undo: [] })
    history.setUpstream(next.upstream)
    history.apply({ kind: 'block', number: sealed.number, hash: sealed.block.hash(), diff })
    blocks.restart(sealed)
    for (const entry of [...pool.all()]) pool.remove(entry.hash)
    await trie.rebuild(history.entries())
    parts.changed({ kind: 'reset', number: sealed.number, hash: sealed.hash })
    await producer.restart()
    clock.restore({ offsetMs: 0, next: undefined })
    instanceId = newInstanceId()
  }

  /** Writes `diff` over the head's state: the trie (which gives it its storage roots), the store, the history. */
  async function writeHead(diff: StateDiff): Promise<void> {
    const number = blocks.head().number
    const after = createOverlay(diff, history.at(number))
    withStorageRoots(diff, after, (await trie.apply(diff, after)).storageRoots)
    store.writeEdit(number, diff)
    const undo = history.apply({ kind: 'edit', number, diff })!
    if (snapshots.size > 0) edits.push({ number, undo })
  }

  /** Applies `latest` to the head's state and `pending` to the block being built (see Producer.editPending). */
  async function editHead(latest: StateEdit, pending: StateEdit): Promise<void> {
    const number = blocks.head().number
    const building = producer.editPending(pending)
    const diff = latest(history.at(number))
    await writeHead(diff)
    building.apply()
    parts.changed({ kind: 'edit', number, latest: diff, pending: building.writes })
  }

  const edit = (edit: StateEdit) => producer.exclusive(() => editHead(edit, edit))

  /** A change the sequencer made, on a replica (ControlService.follow). */
  async function follow(change: ChainEdit, stored = false): Promise<boolean> {
    const head = blocks.head().number
    if (stored) {
      if (change.kind === 'edit' && change.pending !== undefined) {
        const pending = change.pending
        producer.editPending((state) => sequencerRecords(pending, state)).apply()
      }
      return true
    }
    switch (change.kind) {
      case 'edit':
        if (change.number !== head) return false
        await editHead(
          (before) => sequencerRecords(change.latest, before),
          (pending) => sequencerRecords(change.pending ?? createStateDiff(), pending),
        )
        return true
      case 'rewind': {
        if (change.number > head || change.number < blocks.first) return false
        store.truncate(change.number)
        const touched = rewindTo(change.number, [], [])
        await trie.apply(history.restore(change.number, touched), history.at(change.number))
        await producer.restart()
        await writeHead(sequencerRecords(change.writes, history.at(change.number)))
        // This replica's own readers are told of a rewind too.
        parts.changed(change)
        return true
      }
      case 'reset':
        if (parts.refork !== undefined) return false
        await resetToGenesis()
        return blocks.head().number === change.number && blocks.head().hash === change.hash
    }
  }

  async function resetToGenesis(): Promise<void> {
    const genesis = await parts.genesis()
    snapshots.clear()
    edits.length = 0
    store.rewind(genesis.number, { genesis: genesis.diff }, [], () => {
      for (const participant of participants) participant.reset()
    })
    rewindTo(genesis.number - 1n, [], [])
    history.apply({ kind: 'block', number: genesis.number, hash: blocks.head().block.hash(), diff: genesis.diff })
    await trie.rebuild(history.entries())
    if (!equalsBytes(trie.root(), genesis.stateRoot)) parts.log('warning: the state root after a reset differs from the genesis block')
    parts.changed({ kind: 'reset', number: genesis.number, hash: blocks.head().hash })
    await producer.restart()
    clock.restore({ offsetMs: 0, next: undefined })
    instanceId = newInstanceId()
  }

  return {
    get instanceId() {
      return instanceId
    },
    snapshots: () => [...snapshots].map(([id, snapshot]) => ({ id, number: snapshot.head })),
    participate(participant) {
      participants.push({
        capture() {
          const saved = participant.capture()
          return () => participant.restore(saved)
        },
        reset: () => participant.reset(),
      })
    },
    edit,

    snapshot: () =>
      producer.exclusive(async () => {
        const id = nextId++
        snapshots.set(id, {
          head: blocks.head().number,
          mark: store.mark(),
          edits: edits.length,
          building: producer.building(),
          pool: [...pool.all()],
          clock: clock.save(),
          participants: participants.map((participant) => participant.capture()),
        })
        return id
      }),

    revert: (id) =>
      producer.exclusive(async () => {
        const snapshot = snapshots.get(id)
        if (snapshot === undefined) return false
        for (const later of snapshots.keys()) if (later >= id) snapshots.delete(later)
        // An OP Stack block's first transaction, its L1 attributes deposit, is made anew when the block is built again.
        const building = (snapshot.building?.transactions ?? []).filter((entry, i) => !(i === 0 && isDeposit(entry.tx)))
        const waiting = snapshot.pool.concat(building).map(({ hash, raw, sender, impersonated, tx }) => ({
          hash,
          raw,
          sender: impersonated === true ? sender : undefined,
          publicKey: impersonated === true || isDeposit(tx) ? undefined : tx.cache.senderPubKey,
        }))
        store.rewind(snapshot.head, { mark: snapshot.mark }, waiting, () => {
          for (const restore of snapshot.participants) restore()
        })
        const touched = rewindTo(snapshot.head, edits.splice(snapshot.edits).reverse(), snapshot.pool)
        // The trie moves back by what changed since the snapshot, not by the whole state.
        const writes = history.restore(snapshot.head, touched)
        await trie.apply(writes, history.at(snapshot.head))
        parts.changed({ kind: 'rewind', number: snapshot.head, writes: readBack(writes, history.at(snapshot.head)) })
        if (snapshots.size === 0) edits.length = 0
        await producer.restart(snapshot.building)
        clock.restore(snapshot.clock)
        return true
      }),

    reset: (target) => producer.exclusive(() => (target === undefined ? resetToGenesis() : refork(target))),
    follow: (change, stored) => producer.exclusive(() => follow(change, stored)),

    loadState: (dump) => edit(loadDump(dump)),
    async setERC20(token, getter, amount) {
      const { address, slot } = await findERC20Slot(parts.calls, parts.resolver.resolve('latest'), token, getter)
      await edit(setStorage(address, hexToBytes(slot), erc20Word(amount)))
    },
  }
}
