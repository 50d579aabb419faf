import { hexToBytes } from '@ethereumjs/util'

import type { Bloom } from '@ethereumjs/vm'
import type { LogFilter } from '../types.ts'

/** A log filter's addresses and topics as bytes, as a logs bloom is checked for them; an empty list constrains nothing. */
export type BloomQuery = { addresses: Uint8Array[] | undefined; topics: Uint8Array[][] }

export function bloomQuery(filter: Pick<LogFilter, 'addresses' | 'topics'>): BloomQuery {
  const topics: Uint8Array[][] = []
  for (const wanted of filter.topics ?? []) {
    if (wanted === null) continue
    const alternatives = Array.isArray(wanted) ? wanted : [wanted]
    if (alternatives.length > 0) topics.push(alternatives.map((topic) => hexToBytes(topic)))
  }
  const addresses =
    filter.addresses === undefined || filter.addresses.length === 0 ? undefined : filter.addresses.map((address) => hexToBytes(address))
  return { addresses, topics }
}

/**
 * False when the bloom proves that no log of the block matches: none of the addresses is in it, or none of the
 * alternatives at some topic position. True means the block must be read (a bloom has false positives).
 */
export function bloomMayMatch(bloom: Bloom, query: BloomQuery): boolean {
  if (query.addresses !== undefined && !query.addresses.some((address) => bloom.check(address))) return false
  return query.topics.every((alternatives) => alternatives.some((topic) => bloom.check(topic)))
}
