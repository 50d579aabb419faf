import { defineConfig, mergeConfig } from 'vitest/config'

import main from './vitest.config.ts'

/**
 * `npm run test:quick`: the main suite less what takes longest, for a check in a couple of minutes while working.
 * `npm test` runs all of it. Left out here: the third-party tools' suites (test/compat/, which need
 * `npm run compat:install`), the browser suites (test/browser/, which start Chromium), and the end-to-end files that
 * take a worker for half a minute or more, or start the command as child processes, which a loaded machine slows
 * most: real clients waiting on 2 s blocks, 10,000 blocks mined in one call, the state dumps and slot searches of the
 * test-control methods, the command line and the wallet's, restarts of a data directory, and a replica fleet behind
 * HAProxy.
 */
export default mergeConfig(
  main,
  defineConfig({
    test: {
      exclude: [
        'test/compat/**',
        'test/browser/**',
        'test/e2e/clients.test.ts',
        'test/e2e/cli.test.ts',
        'test/e2e/walletCli.test.ts',
        'test/e2e/snapshots.test.ts',
        'test/e2e/dataDir.test.ts',
        'test/e2e/mineBlocks.test.ts',
        'test/e2e/testActions.test.ts',
        'test/e2e/replicaFleet.test.ts',
      ],
    },
  }),
)
