import { describe, expect, test } from 'vitest'

import { devGenesis } from '../spec/devGenesis.ts'
import { createCallTransaction } from './executor.ts'
import { parseGethGenesis } from '../spec/genesis.ts'

describe('createCallTransaction', () => {
  const { common } = parseGethGenesis(devGenesis({ chainId: 1337n, hardfork: 'prague', gasLimit: 30_000_000n, timestamp: 0, alloc: {} }))
  const from = '0x00000000000000000000000000000000000000Bb'
  const to = '0x00000000000000000000000000000000000000aA'

  test('decodes the sender, the recipient and the data, in either letter case, into bytes of their own', () => {
    const tx = createCallTransaction({ from, to, data: '0xA9059cbb00FF', value: 5n }, 100_000n, common)
    expect(tx.getSenderAddress().toString()).toBe(from.toLowerCase())
    expect(tx.to?.toString()).toBe(to.toLowerCase())
    expect(tx.data).toEqual(Uint8Array.of(0xa9, 0x05, 0x9c, 0xbb, 0x00, 0xff))
    // Not a view into Buffer's shared pool, which a structured clone would copy whole.
    expect(tx.data.buffer.byteLength).toBe(6)
    expect(tx.getSenderAddress().bytes.buffer.byteLength).toBe(20)
    expect([tx.gasLimit, tx.value, tx.nonce, tx.type]).toEqual([100_000n, 5n, 0n, 2])
  })

  test('no sender is the zero address, no data is empty, and `to: null` is a creation', () => {
    const tx = createCallTransaction({ to: null }, 100_000n, common)
    expect(tx.getSenderAddress().toString()).toBe(`0x${'00'.repeat(20)}`)
    expect(tx.data).toEqual(new Uint8Array())
    expect(tx.to).toBeUndefined()
  })

  test('a string that is not hex is refused rather than cut short where the hex ends', () => {
    expect(() => createCallTransaction({ to, data: '0xa9059cbbzz' as never }, 100_000n, common)).toThrow('hex')
    expect(() => createCallTransaction({ from: `0x${'g'.repeat(40)}` as never, to }, 100_000n, common)).toThrow('hex')
    expect(() => createCallTransaction({ from: '0x00bb', to }, 100_000n, common)).toThrow('Invalid address length')
  })
})
