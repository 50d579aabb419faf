/**
 * The sequencer's stream as a replica reads it: a frame of Base's wire format (rpc/flashblocks.ts) back into what the
 * chain runs. A frame that does not have the shape flashchain writes is refused with what is wrong, and the replica
 * starts again from the sequencer's state rather than guess.
 */
import { hexToBytes } from '@ethereumjs/util'

import type { StatedEnv } from '../chain/blocks/env.ts'
import type { ChainEdit } from '../chain/types.ts'
import type { StateDiff } from '../chain/state/types.ts'
import type { Hex } from '../hex.ts'
import type { ChainEditJSON, FlashblockJSON, StateWritesJSON } from '../rpc/flashblocks.ts'

/** One frame, as the replica follows it. */
export type Frame = {
  sequence: number
  number: bigint
  index: number
  /** The block's environment, with its first flashblock. */
  env: StatedEnv | undefined
  transactions: { raw: Uint8Array; hash: Hex; impersonated?: Hex | undefined }[]
  /** The hash the block has as of this flashblock (Base's `diff.block_hash`): the replica's must be the same. */
  blockHash: Hex
  /** It ends its block: the block is sealed with `blockHash`. */
  sealed: boolean
  edits: ChainEdit[]
}

export class MalformedFrameError extends Error {}

export function parseFrame(text: string): Frame {
  let json: FlashblockJSON
  try {
    json = JSON.parse(text) as FlashblockJSON
  } catch {
    throw new MalformedFrameError('a frame is not JSON')
  }
  return frameOf(json)
}

export function frameOf(json: FlashblockJSON): Frame {
  const { metadata, diff, base } = json ?? {}
  if (typeof json?.index !== 'number' || typeof metadata?.block_number !== 'number' || typeof metadata.flashchain_sequence !== 'number') {
    throw new MalformedFrameError('a frame has no index, block number or sequence: is the source a flashchain node?')
  }
  if (typeof diff?.block_hash !== 'string' || !Array.isArray(diff.transactions)) throw new MalformedFrameError('a frame has no diff')
  if (json.index === 0 && base === undefined) throw new MalformedFrameError(`block ${metadata.block_number}'s flashblock 0 has no base`)
  const impersonated = metadata.flashchain_impersonated ?? {}
  const hashes = Object.keys(metadata.receipts ?? {}) as Hex[]
  if (hashes.length !== diff.transactions.length) throw new MalformedFrameError('a frame has not one receipt per transaction')
  return {
    sequence: metadata.flashchain_sequence,
    number: BigInt(metadata.block_number),
    index: json.index,
    env:
      base === undefined
        ? undefined
        : {
            number: BigInt(base.block_number),
            timestamp: BigInt(base.timestamp),
            gasLimit: BigInt(base.gas_limit),
            baseFeePerGas: BigInt(base.base_fee_per_gas),
            coinbase: base.fee_recipient.toLowerCase() as Hex,
            prevRandao: base.prev_randao,
            parentHash: base.parent_hash,
            parentBeaconBlockRoot: base.parent_beacon_block_root,
          },
    transactions: diff.transactions.map((raw, i) => ({ raw: hexToBytes(raw), hash: hashes[i]!, impersonated: impersonated[hashes[i]!] })),
    blockHash: diff.block_hash,
    sealed: metadata.flashchain_sealed === true,
    edits: (metadata.flashchain_edits ?? []).map(editOf),
  }
}

export function editOf(edit: ChainEditJSON): ChainEdit {
  const number = BigInt(edit.block_number)
  switch (edit.kind) {
    case 'edit':
      return { kind: 'edit', number, latest: writesOf(edit.latest), pending: edit.pending === null ? undefined : writesOf(edit.pending) }
    case 'rewind':
      return { kind: 'rewind', number, writes: writesOf(edit.writes) }
    case 'reset':
      return { kind: 'reset', number, hash: edit.block_hash }
    default:
      throw new MalformedFrameError(`a frame carries a change of an unknown kind, ${JSON.stringify((edit as { kind: unknown }).kind)}`)
  }
}

/** Zero bytes for a zero word, as the chain keeps a slot (leading zeros stripped). */
function slotValue(word: Hex): Uint8Array {
  const bytes = hexToBytes(word)
  let start = 0
  while (start < bytes.length && bytes[start] === 0) start++
  return bytes.subarray(start)
}

/**
 * The writes of an edit as a StateDiff. Storage roots are not on the wire: the chain keeps each account's own
 * (ControlService.follow), so the zero-length one here is never read.
 */
function writesOf(writes: StateWritesJSON): StateDiff {
  const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() }
  for (const account of writes.accounts) {
    const address = account.address.toLowerCase() as Hex
    if ('deleted' in account) diff.accounts.set(address, null)
    else {
      diff.accounts.set(address, {
        balance: BigInt(account.balance),
        nonce: BigInt(account.nonce),
        codeHash: hexToBytes(account.code_hash),
        storageRoot: new Uint8Array(),
      })
    }
  }
  for (const { address, cleared, slots } of writes.storage) {
    const values = new Map<Hex, Uint8Array>()
    for (const [slot, value] of Object.entries(slots)) values.set(slot.toLowerCase() as Hex, slotValue(value))
    diff.storage.set(address.toLowerCase() as Hex, { cleared, slots: values })
  }
  for (const [hash, code] of Object.entries(writes.code)) diff.code.set(hash.toLowerCase() as Hex, hexToBytes(code))
  return diff
}
