// What answers an execution worker's fetch (workerMessages.ts FetchRequest) on the main thread.
import { servedBy } from '../fork/remoteState.ts'

import type { RemoteState } from '../fork/remoteState.ts'
import type { StateHistory } from '../state/history.ts'
import type { FetchRequest } from './workerMessages.ts'

export type WorkerFetchParts = {
  history: StateHistory
  /** A fork's upstream state now (a reset to another fork block replaces it); undefined on a chain of its own. */
  remote: () => RemoteState | undefined
  blockHashes: (number: bigint) => Uint8Array | undefined | Promise<Uint8Array | undefined>
}

/**
 * A fork's workers fetch through this thread's upstream state, which holds every thread's fetches (docs/fork.md);
 * blocks before the horizon of a chain loaded from its store are read here, from the store (state/older.ts).
 */
export function answerWorkerFetches({ history, remote, blockHashes }: WorkerFetchParts): (request: FetchRequest) => Promise<unknown> {
  const upstream = () => {
    const state = remote()
    if (state === undefined) throw new Error('this chain fetches nothing upstream: it is no fork')
    return servedBy(state)
  }
  return async (request) => {
    switch (request[0]) {
      case 'olderAccount':
        return history.older!.account(request[1], request[2])
      case 'olderStorage':
        return history.older!.storage(request[1], request[2], request[3])
      case 'olderNewest':
        return history.older!.newest(request[1])
      case 'account':
        return upstream().account(request[1])
      case 'storage':
        return upstream().storage(request[1], request[2])
      case 'code':
        return upstream().code!(request[1])
      case 'warm':
        return upstream().warm!(request[1], request[2])
      case 'blockHash':
        return blockHashes(request[1])
    }
  }
}
