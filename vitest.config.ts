import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'contracts/**/*.test.ts', 'scripts/**/*.test.ts'],
    // A consumer's suite, run against the installed package by the release check (scripts/release-check.ts); the load
    // suites, run one at a time by `npm run test:load` (vitest.load.config.ts).
    exclude: [...configDefaults.exclude, 'test/package/**', 'test/load/**'],
    // Guards against a test that hangs, not measures of speed (bench/ measures that): wide enough for a machine with
    // a load average of 8 and more, where starting a node as a child process takes many seconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The machine has two cores; end-to-end suites each start a real server.
    maxWorkers: 2,
  },
})
