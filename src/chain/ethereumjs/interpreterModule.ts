/**
 * @ethereumjs/evm's `dist/esm/interpreter.js`, which the package does not export: the file beside the package entry.
 *
 * The package's bundle (scripts/build-dist.ts) replaces this module with an import of the same file by its path, so that
 * the bundle's own copy of the interpreter is the one `jumpAnalysis.ts` changes. Resolved at run time from
 * there, it would load a second copy of the package from node_modules, leave the bundle's EVM unchanged, and take
 * 80 ms of the start to load.
 */
export function importInterpreter(): Promise<unknown> {
  return import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)
}
