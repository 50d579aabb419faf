import type { EVMInterface } from '@ethereumjs/evm'

/** The run state an opcode's handlers receive; only the interpreter's gas left is read through it. */
export type OpcodeRunState = { interpreter: { getGasLeft(): bigint } }

/** An opcode's handler (runState, common) or its charge (runState, gas, common); neither uses `this`. */
export type OpcodeHandler = (runState: OpcodeRunState, second: unknown, third?: unknown) => unknown

/** One entry of the EVM's opcode table. */
export type OpcodeEntry = {
  opcodeInfo: { name: string }
  opHandler: OpcodeHandler
  gasHandler?: OpcodeHandler
  /** The patched EVM's entry for SLOAD and SSTORE on a state that never waits (patches/, opcodes/codes.js). */
  withSynchronousState?: OpcodeEntry
}

/** The EVM's table of opcode handlers, protected in @ethereumjs/evm. */
type TabledEVM = { _opcodeMap: OpcodeEntry[] }

/**
 * Puts what `replace` makes of each entry in `evm`'s opcode table, now and after every fork change, so that a
 * handler can be watched without a `step` listener (which would take runs off the interpreter's fast loop).
 *
 * Reaches past @ethereumjs/evm's exports:
 * - `dist/esm/evm.js:294`, `this._opcodeMap`: the table `getActiveOpcodes` builds (`opcodes/codes.js:366`,
 *   `getOpcodesForHF`: one entry object per opcode, the invalid ones sharing one), which the interpreter reads at
 *   each step (`interpreter.js:194`, `:207`, `:271`, `:309`, calling `opHandler(runState, common)` and
 *   `gasHandler(runState, gas, common)`);
 * - `dist/esm/evm.js:255`: the EVM rebuilds the table on its Common's `hardforkChanged`, from a listener it
 *   registers in its constructor, before this one.
 * If the field were renamed, this would throw at the first run; if the table were rebuilt at another moment, or
 * its entries called another way, the replaced handlers would stop being called or would be called wrongly:
 * gasProbe.test.ts and the estimate tests would fail (docs/patches.md#reaches-into-ethereumjs).
 */
export function replaceOpcodeEntries(evm: EVMInterface, replace: (entry: OpcodeEntry) => OpcodeEntry): void {
  const tabled = evm as unknown as TabledEVM
  if (!Array.isArray(tabled._opcodeMap)) throw new Error('@ethereumjs/evm no longer keeps its opcode table in _opcodeMap')
  // Entries are replaced, never mutated: the table shares one entry object among the invalid opcodes.
  const apply = () => {
    tabled._opcodeMap = tabled._opcodeMap.map(replace)
  }
  apply()
  evm.common.events.on('hardforkChanged', apply)
}
