/**
 * A fork that reads one slot after another through its cache and prints each as it gets it, until it is killed: the
 * suite (fork.test.ts) kills it with SIGKILL part way, then checks that every slot it printed is in the cache.
 * Arguments: the upstream's URL, the cache file, the fork block as JSON, the contract whose slots it reads.
 */
import { openForkCache } from '../../src/chain/fork/cache.ts'
import { createUpstreamTransport } from '../../src/chain/fork/transport.ts'
import { createUpstreamState } from '../../src/chain/fork/upstream.ts'

import type { Hex } from '../../src/hex.ts'

const [url, path, forkJson, contract] = process.argv.slice(2) as [string, string, string, Hex]
const parsed = JSON.parse(forkJson) as { chainId: string; number: string; hash: Hex }
const fork = { chainId: BigInt(parsed.chainId), number: BigInt(parsed.number), hash: parsed.hash }
const cache = openForkCache({ path, fork, endpoint: url })
const state = createUpstreamState({ transport: createUpstreamTransport({ url }), fork, cache })

// Bounded, in case nobody kills it.
for (let slot = 0n; slot < 10_000n; slot++) {
  const value = await state.storage(contract, `0x${slot.toString(16)}`)
  process.stdout.write(`slot ${slot} ${value}\n`)
}
