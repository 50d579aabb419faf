import { describe, expect, test } from 'vitest'

import { EncodedJson, hexJson, rememberHexJson } from './encodedJson.ts'

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8')

describe('hexJson', () => {
  test('default: the JSON string of the bytes as 0x-prefixed lowercase hex', () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) & 0xff)
    expect(text(hexJson(bytes))).toBe(JSON.stringify(`0x${Buffer.from(bytes).toString('hex')}`))
  })

  test('args: a view of a larger buffer encodes only the view', () => {
    const whole = new Uint8Array([1, 2, 3, 4, 5])
    expect(text(hexJson(whole.subarray(1, 3)))).toBe('"0x0203"')
    expect(text(hexJson(new Uint8Array()))).toBe('"0x"')
  })

  test('its buffer is its own, so a worker can hand it over', () => {
    const json = hexJson(new Uint8Array([0xab]))
    expect(json.byteOffset).toBe(0)
    expect(json.buffer.byteLength).toBe(json.byteLength)
  })
})

describe('EncodedJson', () => {
  test('hex: uses the encoding a worker made for these very bytes, and encodes others itself', () => {
    const bytes = new Uint8Array([0xde, 0xad])
    const made = hexJson(bytes)
    rememberHexJson(bytes, made)
    expect(EncodedJson.hex(bytes).bytes).toBe(made)
    const other = new Uint8Array([0xde, 0xad])
    expect(EncodedJson.hex(other).bytes).not.toBe(made)
    expect(text(EncodedJson.hex(other).bytes)).toBe('"0xdead"')
  })

  test('toJSON: anything that encodes it again gets the same JSON', () => {
    expect(JSON.stringify({ result: EncodedJson.of('[{"a":"0x1"}]') })).toBe('{"result":[{"a":"0x1"}]}')
    expect(JSON.stringify([EncodedJson.hex(new Uint8Array([1]))])).toBe('["0x01"]')
  })
})
