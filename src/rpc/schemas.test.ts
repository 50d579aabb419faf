import { describe, expect, test } from 'vitest'

import { block, blockByNumber, quantity, strictQuantity, uint64 } from './schemas.ts'

import type { z } from 'zod'

/** The first issue's message, or the value parsed. */
function parse<T extends z.ZodType>(schema: T, input: unknown): unknown {
  const result = schema.safeParse(input)
  return result.success ? result.data : { error: result.error.issues[0]!.message }
}

describe('quantity', () => {
  test('default: a hex string, as geth writes it', () => {
    expect(parse(quantity, '0x0')).toBe(0n)
    expect(parse(quantity, '0x1f')).toBe(31n)
  })

  test('args: leading zeros and JSON integers, as anvil takes them', () => {
    expect(parse(quantity, '0x08')).toBe(8n)
    expect(parse(quantity, '0x00')).toBe(0n)
    expect(parse(quantity, `0x${'0'.repeat(80)}1`)).toBe(1n)
    expect(parse(quantity, 3)).toBe(3n)
    expect(parse(quantity, Number.MAX_SAFE_INTEGER)).toBe(2n ** 53n - 1n)
  })

  test("error: what anvil refuses too, in geth's words", () => {
    expect(parse(quantity, '0x')).toEqual({ error: 'hex string "0x"' })
    expect(parse(quantity, '8')).toEqual({ error: 'hex string without 0x prefix' })
    expect(parse(quantity, '0xg')).toEqual({ error: 'invalid hex string' })
    expect(parse(quantity, `0x1${'0'.repeat(64)}`)).toEqual({ error: 'hex number > 256 bits' })
    expect(parse(quantity, -1)).toEqual({ error: 'invalid quantity, want a non-negative integer' })
    expect(parse(quantity, 0.5)).toEqual({ error: 'invalid quantity, want a non-negative integer' })
    expect(parse(quantity, 2 ** 53)).toEqual({ error: 'number past 2^53 - 1, send it as a hex string' })
    expect(parse(quantity, true)).toEqual({ error: 'invalid quantity, want a hex string or a JSON integer' })
    expect(parse(uint64, '0x010000000000000000')).toEqual({ error: 'hex number > 64 bits' })
  })

  test('error: the strict form (the wallet methods) keeps refusing leading zeros and numbers', () => {
    expect(parse(strictQuantity, '0x1')).toBe(1n)
    expect(parse(strictQuantity, '0x01')).toEqual({ error: 'hex number with leading zero digits' })
    expect(parse(strictQuantity, 1)).toEqual({ error: 'Invalid input: expected string, received number' })
  })
})

describe('block', () => {
  const refused = {
    error: 'invalid block number or tag, want "latest", "pending", "safe", "finalized", "earliest", a hex number or an EIP-1898 object',
  }

  test('args: a number with leading zeros, bare or in an EIP-1898 object', () => {
    expect(parse(block, '0x08')).toBe(8n)
    expect(parse(block, { blockNumber: '0x08' })).toBe(8n)
    expect(parse(block, 'pending')).toBe('pending')
  })

  test("error: a JSON integer or a decimal string, which anvil's BlockId refuses too", () => {
    expect(parse(block, 8)).toEqual(refused)
    expect(parse(block, '8')).toEqual(refused)
    expect(parse(block, { blockNumber: 8 })).toEqual(refused)
  })

  test("blockByNumber: a JSON integer too, as anvil reads eth_getBlockByNumber's", () => {
    expect(parse(blockByNumber, 8)).toBe(8n)
    expect(parse(blockByNumber, '0x08')).toBe(8n)
    expect(parse(blockByNumber, 'latest')).toBe('latest')
    expect(parse(blockByNumber, '8')).toEqual(refused)
    expect(parse(blockByNumber, -1)).toEqual(refused)
  })
})
