import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * patches/ makes four @ethereumjs packages faster without changing what they compute (the GeneralStateTests run
 * through both, test/state/). Each patched package carries a `flashchain:` comment in one of its files; these are
 * the files looked at, beside each package's entry point.
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
