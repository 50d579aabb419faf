import { describe, expect, test } from 'vitest'

import { createChainEvents } from './events.ts'

import type { ChainEvent } from './types.ts'

const event = (hash: string): ChainEvent => ({ type: 'poolTransaction', transaction: { hash } as never })
const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('createChainEvents', () => {
  test('delivers on a later turn, in order, to every listener', async () => {
    const events = createChainEvents(() => {})
    const seen: string[] = []
    events.subscribe((e) => seen.push(`a ${e.type === 'poolTransaction' ? e.transaction.hash : ''}`))
    events.subscribe((e) => seen.push(`b ${e.type === 'poolTransaction' ? e.transaction.hash : ''}`))
    events.announce(() => event('1'))
    events.announce(() => event('2'))
    expect(seen).toEqual([])
    await turn()
    expect(seen).toEqual(['a 1', 'b 1', 'a 2', 'b 2'])
  })

  test('builds nothing while nobody listens, and stops delivering to a listener that left', async () => {
    const events = createChainEvents(() => {})
    let built = 0
    const build = (hash: string) => () => {
      built++
      return event(hash)
    }
    events.announce(build('x'))
    expect(built).toBe(0)
    const seen: ChainEvent[] = []
    const stop = events.subscribe((e) => seen.push(e))
    events.announce(build('y'))
    stop()
    await turn()
    expect(built).toBe(1)
    expect(seen).toEqual([])
  })

  test('a listener that throws is logged; the others still get the event', async () => {
    const lines: string[] = []
    const events = createChainEvents((line) => lines.push(line))
    const seen: ChainEvent[] = []
    events.subscribe(() => {
      throw new Error('boom')
    })
    events.subscribe((e) => seen.push(e))
    events.announce(() => event('z'))
    await turn()
    expect(seen).toHaveLength(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^a poolTransaction listener failed: Error: boom/)
  })
})
