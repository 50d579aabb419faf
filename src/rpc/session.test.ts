import { describe, expect, test } from 'vitest'

import { createSession } from './session.ts'

import type { Hex } from '../hex.ts'

describe('createSession', () => {
  test('wraps each result in its subscription’s eth_subscription envelope, as geth sends it', () => {
    const sent: string[] = []
    const session = createSession((json) => sent.push(String(json)) > 0)
    let notify: ((json: Buffer) => boolean) | undefined
    const id = session.subscribe((send) => {
      notify = send
      return () => {}
    })
    expect(id).toMatch(/^0x[0-9a-f]{32}$/)
    expect(notify!(Buffer.from('{"a":1}'))).toBe(true)
    expect(sent.map((text) => JSON.parse(text))).toEqual([
      { jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: { a: 1 } } },
    ])
  })

  test('unsubscribe stops one subscription and answers whether it had it; close stops the rest', () => {
    const sent: string[] = []
    const session = createSession((json) => sent.push(String(json)) > 0)
    const stopped: string[] = []
    const notifiers = new Map<string, (json: Buffer) => boolean>()
    const open = (name: string) =>
      session.subscribe((send) => {
        notifiers.set(name, send)
        return () => stopped.push(name)
      })
    const a = open('a')
    const b = open('b')
    expect(a).not.toBe(b)
    expect(session.unsubscribe(a.toUpperCase().replace('0X', '0x') as Hex)).toBe(true)
    expect(session.unsubscribe(a)).toBe(false)
    expect(stopped).toEqual(['a'])
    expect(notifiers.get('a')!(Buffer.from('1'))).toBe(false)
    expect(notifiers.get('b')!(Buffer.from('2'))).toBe(true)
    session.close()
    expect(stopped).toEqual(['a', 'b'])
    expect(notifiers.get('b')!(Buffer.from('3'))).toBe(false)
    expect(sent).toHaveLength(1)
    // A subscription opened after the connection is gone is stopped at once.
    open('c')
    expect(stopped).toEqual(['a', 'b', 'c'])
  })

  test('error: past its cap, or past the total across sessions, subscribe throws -32005; leaving gives places back', () => {
    const total = { open: 0, max: 3 }
    const first = createSession(() => true, { maxSubscriptions: 2, total })
    const second = createSession(() => true, { maxSubscriptions: 2, total })
    const open = (session: ReturnType<typeof createSession>) => session.subscribe(() => () => {})
    const a = open(first)
    open(first)
    expect(() => open(first)).toThrow('too many subscriptions on this connection (at most 2); unsubscribe from one first')
    open(second)
    expect(total.open).toBe(3)
    expect(() => open(second)).toThrow('too many subscriptions on this node (at most 3 across connections); try again later')
    first.unsubscribe(a)
    open(second)
    first.close()
    expect(total.open).toBe(2)
  })
})
