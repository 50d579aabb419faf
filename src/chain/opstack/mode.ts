import { RefusedError } from '../errors.ts'

import type { ChainOptions } from '../spec/config.ts'
import type { GenesisAccount } from '../spec/genesis.ts'
import type { Hex } from '../../hex.ts'
import type { ChainStore } from '../storage/chainStore.ts'

/**
 * Whether the chain is an OP Stack chain: as asked, for a new data dir; as it was made, for one that holds a chain,
 * which cannot become one or stop being one (its genesis and every block say which it is).
 */
export function opStackOf(store: ChainStore, options: ChainOptions): boolean {
  const stored = store.getMeta('opStack')
  const asked = options.opStack === true
  if (store.getMeta('genesis') === undefined) {
    store.setMeta('opStack', asked ? 'true' : 'false')
    return asked
  }
  const holds = stored === 'true'
  if (holds !== asked && (stored !== undefined || asked)) {
    throw new RefusedError(
      holds
        ? 'the data dir holds an OP Stack chain: start it with --op-stack, or with --fresh'
        : 'the data dir holds a chain that is not an OP Stack chain: start it without --op-stack, or with --fresh',
    )
  }
  return holds
}

/**
 * The OP Stack's genesis accounts, loaded when block 0 is made (a new chain, a reset): 0.7 MB of code that the
 * chain's stored genesis leaves out, since the data dir says it is an OP Stack chain. Accounts the genesis names
 * itself take their place.
 */
export async function opStackAllocOf(): Promise<Map<Hex, GenesisAccount>> {
  return (await import('./predeploys.ts')).opStackAlloc()
}
