import { describe, expect, test } from 'vitest'

import { ChainError, ExecutionRevertedError, TransactionRejectedError, fromPortable, toPortable } from './errors.ts'

describe('toPortable and fromPortable', () => {
  test('default: an error crosses a thread boundary as the same class with the same fields', () => {
    const rejected = new TransactionRejectedError({ kind: 'insufficientFunds', address: '0x01', have: 1n, want: 2n })
    const revived = fromPortable(structuredClone(toPortable(rejected)))
    expect(revived).toBeInstanceOf(TransactionRejectedError)
    expect(revived).toMatchObject({ name: 'TransactionRejectedError', message: rejected.message, reason: rejected.reason })
  })

  test('a revert keeps its reason and data', () => {
    const revived = fromPortable(structuredClone(toPortable(new ExecutionRevertedError({ reason: 'nope', data: '0x01' }))))
    expect(revived).toBeInstanceOf(ExecutionRevertedError)
    expect(revived).toMatchObject({ message: 'execution reverted: nope', reason: 'nope', data: '0x01' })
  })

  test('error: a class it does not know comes back as a ChainError with its message', () => {
    const revived = fromPortable({ name: 'SomethingNew', message: 'what happened', fields: {} })
    expect(revived).toBeInstanceOf(ChainError)
    expect(revived.message).toBe('what happened')
  })
})
