/**
 * ethereumjs analyses a contract's code (valid JUMPDESTs, decoded PUSH values, opcode entries) on every call frame
 * that jumps: a sixth of an ERC20 estimate's time went there. The result depends only on the code and the EVM's
 * opcode table, and the interpreter only reads it, so it is kept per (opcode table, code array). The state hands
 * out one array per stored code, so every call into the same contract finds the analysis of the first.
 *
 * The interpreter is internal to @ethereumjs/evm (not in its exports), so it is reached through its file beside the
 * package entry. If a version of the package no longer has this shape, nothing is changed and calls analyse as before.
 */
type Analysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }
type InterpreterPrototype = { _getValidJumpDestinations(code: Uint8Array): Analysis }
type Interpreter = InterpreterPrototype & { _evm: { _opcodeMap: object } }

export async function cacheJumpAnalysis(): Promise<boolean> {
  let prototype: InterpreterPrototype | undefined
  try {
    const module = (await import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)) as {
      Interpreter?: { prototype: InterpreterPrototype }
    }
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
