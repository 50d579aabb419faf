import { describe, expect, test } from 'vitest'

import { createStreamEdits } from './streamEdits.ts'

import type { ChainEdit } from '../types.ts'

const reset = (number: bigint): ChainEdit => ({ kind: 'reset', number, hash: `0x${'00'.repeat(32)}` })

describe('the test-control changes the next flashblock tells', () => {
  test('are kept while the stream has a reader, in order, and taken once', () => {
    const edits = createStreamEdits(() => true)
    edits.changed(reset(1n))
    edits.moved()
    edits.changed(reset(2n))
    expect(edits.take()).toEqual([reset(1n), reset(2n)])
    expect(edits.take()).toEqual([])
  })

  test('are not kept while the stream has no reader', () => {
    const edits = createStreamEdits(() => false)
    edits.changed(reset(1n))
    expect(edits.take()).toEqual([])
  })

  test('an edit no reader heard drops those before it: a reader that comes later has both in its state', () => {
    let listening = true
    const edits = createStreamEdits(() => listening)
    edits.changed(reset(1n))
    listening = false
    edits.changed(reset(2n))
    listening = true
    expect(edits.take()).toEqual([])
  })

  test('a block or flashblock no reader saw drops them: what it changed would be undone by an older edit', () => {
    let listening = true
    const edits = createStreamEdits(() => listening)
    edits.changed(reset(1n))
    listening = false
    edits.moved()
    listening = true
    expect(edits.take()).toEqual([])
  })

  test('with nothing changed while no reader was there, they stay: their writes are absolute, so telling them again is harmless', () => {
    let listening = true
    const edits = createStreamEdits(() => listening)
    edits.changed(reset(1n))
    listening = false
    listening = true
    expect(edits.take()).toEqual([reset(1n)])
  })
})
