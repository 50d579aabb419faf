import type { StateDiff, StateReader } from './types.ts'

const EMPTY = new Uint8Array(0)

/**
 * A diff seen on top of a parent view. Pending state is a short chain of these (one per flashblock) over the
 * sealed head, so publishing a flashblock copies nothing.
 */
export function createOverlay(diff: StateDiff, parent: StateReader): StateReader {
  return {
    origin: { kind: 'overlay', diff, parent },
    waits: parent.waits,
    account(address) {
      const account = diff.accounts.get(address)
      if (account !== undefined) return account ?? undefined
      return diff.accounts.has(address) ? undefined : parent.account(address)
    },
    storage(address, slot) {
      const storage = diff.storage.get(address)
      if (storage === undefined) return parent.storage(address, slot)
      const value = storage.slots.get(slot)
      if (value !== undefined) return value
      return storage.cleared ? EMPTY : parent.storage(address, slot)
    },
    code(codeHash) {
      return diff.code.get(codeHash) ?? parent.code(codeHash)
    },
  }
}
