import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * patches/ makes four @ethereumjs packages faster without changing what they compute (the GeneralStateTests run
 * through both, test/state/). Each patched package carries a `flashchain:` comment in one of its files; these are
 * the files looked at, beside each package's entry point.
 *
 * Reaches past the packages' exports: it reads files of their builds, `dist/esm/common.js`, `dist/esm/journal.js`,
 * `dist/esm/types.js` and `dist/esm/bytes.js` (or `dist/cjs/…` under the published build's resolve hook), found
 * beside what `import.meta.resolve` gives for each package. If a release moves or renames one, the package is
 * reported unpatched: the warning at start is wrong, and patches.test.ts and the state test runner fail on the
 * patched build (docs/patches.md#reaches-into-ethereumjs).
 */
const PATCHED_FILES = {
  '@ethereumjs/common': 'common.js',
  '@ethereumjs/evm': 'journal.js',
  '@ethereumjs/tx': 'types.js',
  '@ethereumjs/util': 'bytes.js',
} as const

export const PATCHED_PACKAGES = Object.keys(PATCHED_FILES)

/** The patched packages that are installed as published, without the speed patches. */
export function unpatchedPackages(): string[] {
  return Object.entries(PATCHED_FILES)
    .filter(([name, file]) => {
      try {
        return !readFileSync(fileURLToPath(new URL(`./${file}`, import.meta.resolve(name))), 'utf8').includes('flashchain:')
      } catch {
        return true
      }
    })
    .map(([name]) => name)
}
