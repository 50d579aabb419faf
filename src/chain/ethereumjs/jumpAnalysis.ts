/**
 * ethereumjs analyses a contract's code (valid JUMPDESTs, decoded PUSH values, opcode entries) on every call frame
 * that jumps: a sixth of an ERC20 estimate's time went there. The result depends only on the code and the EVM's
 * opcode table, and the interpreter only reads it, so it is kept per (opcode table, code array). The state hands
 * out one array per stored code, so every call into the same contract finds the analysis of the first.
 *
 * Reaches past @ethereumjs/evm's exports (the package does not export the interpreter, so its file is imported from
 * beside the package entry, by `interpreterModule.ts`):
 * - `dist/esm/interpreter.js:420`, `Interpreter.prototype._getValidJumpDestinations(code)`, swapped for a caching
 *   one; `run` calls it (lines 149 and 165) and only reads the `{ jumps, pushes, opcodesCached }` it returns;
 * - `dist/esm/evm.js:294`, `this._opcodeMap`, the opcode table `getActiveOpcodes` builds anew on each fork change,
 *   read as `this._evm._opcodeMap`: the key that keeps one fork's analysis from another's.
 * If the file, the class or the method is gone, nothing is changed and calls analyse as before (slower). If the
 * analysis came to depend on more than the code and the table, or were written to by the interpreter, cached
 * answers would be wrong: the state tests would fail (docs/patches.md#reaches-into-ethereumjs).
 */
import { importInterpreter } from './interpreterModule.ts'

type Analysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }
type InterpreterPrototype = { _getValidJumpDestinations(code: Uint8Array): Analysis }
type Interpreter = InterpreterPrototype & { _evm: { _opcodeMap: object } }

export async function cacheJumpAnalysis(): Promise<boolean> {
  let prototype: InterpreterPrototype | undefined
  try {
    const module = (await importInterpreter()) as { Interpreter?: { prototype: InterpreterPrototype } }
    prototype = module.Interpreter?.prototype
  } catch {
    return false
  }
  const analyse = prototype?._getValidJumpDestinations
  if (prototype === undefined || typeof analyse !== 'function') return false
  if ((analyse as { cached?: true }).cached) return true

  const byTable = new WeakMap<object, WeakMap<Uint8Array, Analysis>>()
  const cached = function (this: Interpreter, code: Uint8Array): Analysis {
    const table = this._evm._opcodeMap
    let byCode = byTable.get(table)
    if (byCode === undefined) byTable.set(table, (byCode = new WeakMap()))
    let analysis = byCode.get(code)
    if (analysis === undefined) byCode.set(code, (analysis = analyse.call(this, code)))
    return analysis
  }
  prototype._getValidJumpDestinations = Object.assign(cached, { cached: true as const })
  return true
}
