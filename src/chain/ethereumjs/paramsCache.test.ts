import { paramsBlock } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createTx, paramsTx } from '@ethereumjs/tx'
import { describe, expect, test } from 'vitest'

import { mergeParamsOnce } from './paramsCache.ts'

const cacheOf = (common: Common) => (common as unknown as { _paramsCache: object })._paramsCache

describe('mergeParamsOnce', () => {
  test('a copy that merges a table its cache was built from keeps the cache', () => {
    const common = mergeParamsOnce(new Common({ chain: Mainnet, hardfork: Hardfork.Prague }))
    const copy = common.copy()
    const cache = cacheOf(copy)
    copy.updateParams(paramsTx)
    copy.updateParams(paramsBlock)
    expect(cacheOf(copy)).toBe(cache)
  })

  test('parameters stay right across copies, new tables and hardfork changes', () => {
    const common = mergeParamsOnce(new Common({ chain: Mainnet, hardfork: Hardfork.Prague }))
    const table = { 1: { flashchainTestParam: 7 } }
    const copy = common.copy()
    copy.updateParams(table)
    expect(copy.param('flashchainTestParam')).toBe(7n)
    // EIP-7623's floor exists from Prague on; the cache follows the fork.
    expect(copy.param('totalCostFloorPerToken')).toBe(10n)
    copy.setHardfork(Hardfork.Cancun)
    expect(copy.param('txGas')).toBe(21000n)
    expect(copy.param('flashchainTestParam')).toBe(7n)
    const tx = createTx({ type: 2, to: '0x0000000000000000000000000000000000000001', gasLimit: 21000n, maxFeePerGas: 1n }, { common: copy })
    expect(tx.getIntrinsicGas()).toBe(21000n)
  })
})
