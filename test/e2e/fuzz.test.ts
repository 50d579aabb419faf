// A property test of the whole endpoint: every method gets random and mutated params (wrong types, odd hex,
// out-of-range numbers, deep nesting, large arrays, `__proto__` keys), and no answer may be -32603 or an HTTP 5xx.
// CI runs a fixed seed; a local run draws a new one each time, and a failure names it (FUZZ_SEED repeats it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { methods } from '../../src/rpc/methods.ts'
import { startChain } from './helpers.ts'

import type { TestChain } from './helpers.ts'

const seed = Number(process.env.FUZZ_SEED ?? (process.env.CI === 'true' ? 20261125 : Math.floor(Math.random() * 2 ** 31)))
const VARIANTS_PER_METHOD = 40
const MIXED_CASE = [...'0123456789abcdefABCDEF']
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/** JSON text to send as it is. */
class Raw {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

/** mulberry32: small, seeded, and good enough to pick test inputs. */
function random(seedValue: number) {
  let state = seedValue >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

let t: TestChain
const internalErrors: string[] = []

beforeAll(async () => {
  t = await startChain({ approvalTimeout: 100, log: (line: string) => line.includes('internal error') && internalErrors.push(line) } as never)
})

afterAll(async () => {
  await t?.close()
})

/** Methods whose valid params take long by design (many blocks, a wait): their numbers are kept small. */
const slow = new Set(['anvil_mine', 'hardhat_mine', 'eth_sendRawTransactionSync'])

describe(`every method, random and mutated params (seed ${seed})`, () => {
  const next = random(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const address = () => `0x${Array.from({ length: 40 }, () => pick(MIXED_CASE)).join('')}`
  /**
   * Random bytes as hex, four bytes to a draw, each written from a table: the arrays of 10,000 hashes are most of
   * what is drawn, and a draw per digit made generating the variants take longer than the node took to answer them.
   */
  const hex = (bytes: number) => {
    let text = '0x'
    for (let i = 0; i < bytes; i += 4) {
      const word = Math.floor(next() * 2 ** 32)
      text += BYTE_HEX[word >>> 24]! + BYTE_HEX[(word >>> 16) & 0xff] + BYTE_HEX[(word >>> 8) & 0xff] + BYTE_HEX[word & 0xff]
    }
    return text.slice(0, 2 + bytes * 2)
  }

  /** One value of any JSON kind, at most `depth` levels deep. */
  function value(depth: number): unknown {
    const kinds = [
      () => null,
      () => next() < 0.5,
      () => pick([0, -1, 1, 2 ** 53, -(2 ** 63), 1.5, 1e308, 255, 256]),
      () => pick(['', '0x', '0x0', '0x00', '0x1', '0xg', '0X1', '1', 'latest', 'pending', 'earliest', '__proto__', 'constructor']),
      () => hex(pick([1, 2, 8, 20, 32, 33, 64])),
      () => `0x${'f'.repeat(pick([15, 16, 17, 63, 64, 65, 200]))}`,
      () => address(),
      () => (depth <= 0 ? [] : Array.from({ length: pick([0, 1, 2, 3]) }, () => value(depth - 1))),
      () => (depth <= 0 ? {} : object(depth - 1)),
    ]
    return pick(kinds)()
  }

  function object(depth: number): Record<string, unknown> {
    const keys = [
      'from',
      'to',
      'gas',
      'value',
      'data',
      'input',
      'nonce',
      'type',
      'address',
      'topics',
      'fromBlock',
      'toBlock',
      'blockHash',
      'calls',
      'version',
      'chainId',
      'capabilities',
      'optional',
      'default',
      'methods',
      'options',
      'forking',
      'authorizationList',
      'blobVersionedHashes',
      'accessList',
      'stateDiff',
      'balance',
      'code',
    ]
    const result: Record<string, unknown> = {}
    for (let i = pick([0, 1, 2, 3, 4]); i > 0; i--) result[pick(keys)] = value(depth)
    return result
  }

  /**
   * JSON text of a value nested `depth` levels, with a `__proto__` key at the bottom now and then: written as text,
   * since JSON.stringify itself overflows the stack long before 100,000 levels.
   */
  function nested(depth: number): Raw {
    const array = next() < 0.5
    const open = array ? '[' : '{"optional":true,"value":'
    const close = array ? ']' : '}'
    return new Raw(`${open.repeat(depth)}${next() < 0.5 ? '{"__proto__":{"x":1}}' : '1'}${close.repeat(depth)}`)
  }

  function params(): unknown {
    const shapes = [
      () => Array.from({ length: pick([0, 1, 2, 3, 4]) }, () => value(3)),
      () => [value(3), value(3), value(3)],
      () => object(2),
      () => [object(3), pick(['latest', 'pending', '0x0', '0xffffffffffffffff'])],
      () => new Raw(`[${nested(pick([10, 70, 1000, 100_000])).text}]`),
      () => [Array.from({ length: pick([1000, 10_000]) }, () => hex(32))],
      () => [JSON.parse(`{"__proto__": ${JSON.stringify(object(1))}}`)],
      () => [{ ...object(1), nonce: pick(['0xffffffffffffffff', '0xfffffffffffffffe']), type: pick(['0x3', '0x4', '0x7e', '0x100']) }],
    ]
    return pick(shapes)()
  }

  for (const method of methods) {
    it(method.name, async () => {
      const sent = Array.from({ length: VARIANTS_PER_METHOD }, () => {
        let body = params()
        // Bound what is slow on purpose: small counts, short waits.
        if (slow.has(method.name) && Array.isArray(body)) body = body.map((item) => (typeof item === 'string' && item.length > 6 ? '0x2' : item))
        return body instanceof Raw ? body.text : JSON.stringify(body)
      })
      // Ten to a batch, so that large variants stay under the body limit.
      for (let start = 0; start < sent.length; start += 10) {
        const requests = sent
          .slice(start, start + 10)
          .map((text, i) => `{"jsonrpc":"2.0","id":${start + i},"method":"${method.name}","params":${text}}`)
        const response = await fetch(t.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: `[${requests.join(',')}]` })
        expect(response.status, `HTTP ${response.status} for ${method.name} (FUZZ_SEED=${seed})`).toBeLessThan(500)
        const answers = (await response.json()) as { id: number; error?: { code: number } } | { id: number; error?: { code: number } }[]
        for (const answer of Array.isArray(answers) ? answers : [answers]) {
          if (answer.error?.code === -32603) expect.fail(`${method.name} answered -32603 to ${sent[answer.id]?.slice(0, 300)} (FUZZ_SEED=${seed})`)
        }
      }
      // Whatever the method left behind (a clock, interval mining), the next one starts from a quiet chain.
      await t.rpc('evm_setIntervalMining', [0])
      await t.rpc('flashchain_setApprovalPolicy', [{ default: 'approve' }])
      expect(internalErrors, `FUZZ_SEED=${seed}`).toEqual([])
    })
  }
})
