/**
 * `node --import ./test/support/published.ts …` runs flashchain on @ethereumjs as published, without patches/.
 *
 * patches/ edits only the packages' ESM builds (dist/esm). Their CommonJS builds (dist/cjs) are the same source,
 * compiled and published as it is. The hook resolves every @ethereumjs import, ours and theirs, to the CommonJS
 * build, so one process never mixes the two. The environment variable tells tests and child processes (which inherit
 * NODE_OPTIONS) which build they were meant to get, so that a hook that did not take effect fails loudly.
 */
import { register } from 'node:module'

import { ETHEREUMJS_BUILD } from './ethereumjsBuild.ts'

process.env[ETHEREUMJS_BUILD] = 'published'
register('./publishedHooks.ts', import.meta.url)
