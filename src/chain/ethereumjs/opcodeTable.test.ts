import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM } from '@ethereumjs/evm'
import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, test } from 'vitest'

import { replaceOpcodeEntries } from './opcodeTable.ts'

// GAS, POP, STOP
const readsGas = hexToBytes('0x5a5000')

describe('replaceOpcodeEntries', () => {
  test('the replaced entry is the one that runs, under the fork it was made for and after a fork change', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) })
    const ran: string[] = []
    replaceOpcodeEntries(evm, (entry) =>
      entry.opcodeInfo.name !== 'GAS'
        ? entry
        : {
            ...entry,
            opHandler: (runState, second, third) => {
              ran.push(evm.common.hardfork())
              return entry.opHandler(runState, second, third)
            },
          },
    )
    expect((await evm.runCode({ code: readsGas, gasLimit: 100_000n })).exceptionError).toBeUndefined()
    evm.common.setHardfork(Hardfork.Prague)
    expect((await evm.runCode({ code: readsGas, gasLimit: 100_000n })).exceptionError).toBeUndefined()
    expect(ran).toEqual([Hardfork.Cancun, Hardfork.Prague])
  })
})
