import { defineConfig, mergeConfig } from 'vitest/config'

import main from './vitest.config.ts'

/**
 * `npm run test:published`: the suites again, on @ethereumjs as published instead of patched (docs/patches.md). The
 * patches change how the EVM, the transactions, the hardfork rules and the byte helpers compute, so the suites that
 * run again are those whose answers come from them: execution, gas, traces, simulations, transactions, receipts,
 * blocks and state, in unit and end-to-end tests. Left out are the suites whose assertions are about something no
 * patch touches, which run once in `vitest run`: the third-party tools' suites (what the wire carries), the browser
 * suites (the console page and the injected provider), the HTTP and WebSocket server, process plumbing and the
 * modules a process loads, the envelope, the error mapping, params schemas, the filters' journal, sessions, the
 * event bus, the store, the worker messages' encoding, the repository's scripts and its static checks, and the
 * end-to-end files of the command line, the transport and its limits, who may call what, the wallet's approvals,
 * persistence across restarts, real clients' polling, and the fuzzing of every method's params. Many of those start
 * a chain too, so the published build's start-up is still covered by the suites kept.
 *
 * `npm test` runs it as `npm run test:second-build`, with every call on the main thread too (no execution workers):
 * the main suite has the patches and the workers, this one neither, so each alternative is held to the same answers
 * once, and the snapshot suite stays in for the reverts a worker's replica must follow (docs/testing.md).
 */
export default mergeConfig(
  main,
  defineConfig({
    test: {
      exclude: [
        'test/compat/**',
        'test/browser/**',
        'src/server/**',
        'src/runtime/**',
        'src/footprint.test.ts',
        'src/chains.test.ts',
        'src/chain/events.test.ts',
        'src/chain/errors.test.ts',
        'src/chain/storage/**',
        'src/chain/execution/workerMessages.test.ts',
        'src/rpc/dispatch.test.ts',
        'src/rpc/errorMapping.test.ts',
        'src/rpc/filterJournal.test.ts',
        'src/rpc/schemas.test.ts',
        'src/rpc/session.test.ts',
        'src/rpc/ownerOnly.test.ts',
        'scripts/**',
        'test/architecture.test.ts',
        'test/typedRequest.test.ts',
        'test/e2e/cli.test.ts',
        'test/e2e/walletCli.test.ts',
        'test/e2e/hosts.test.ts',
        'test/e2e/websocket.test.ts',
        'test/e2e/clientMemory.test.ts',
        'test/e2e/slowConsumer.test.ts',
        'test/e2e/invalidInput.test.ts',
        'test/e2e/lenientParams.test.ts',
        'test/e2e/testControlOrigins.test.ts',
        'test/e2e/walletOrigins.test.ts',
        'test/e2e/walletAuthorization.test.ts',
        'test/e2e/walletApprovals.test.ts',
        'test/e2e/dataDir.test.ts',
        'test/e2e/persistence.test.ts',
        'test/e2e/clients.test.ts',
        'test/e2e/fuzz.test.ts',
      ],
    },
  }),
)
