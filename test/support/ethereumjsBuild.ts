import { PATCHED_PACKAGES, unpatchedPackages } from '../../src/chain/ethereumjs/patches.ts'

export const ETHEREUMJS_BUILD = 'FLASHCHAIN_ETHEREUMJS_BUILD'

/** Whether this process was started to run on @ethereumjs as published (test/support/published.ts). */
export function expectsPublishedBuild(): boolean {
  return process.env[ETHEREUMJS_BUILD] === 'published'
}

/** Fails unless @ethereumjs loaded in this process is the build the process was started for. */
export function assertEthereumjsBuild(): void {
  const expected = expectsPublishedBuild() ? PATCHED_PACKAGES : []
  const unpatched = unpatchedPackages()
  if (unpatched.join() !== expected.join()) {
    throw new Error(`expected ${expected.length === 0 ? 'every package patched' : 'the published build'}, but unpatched: [${unpatched.join(', ')}]`)
  }
}
