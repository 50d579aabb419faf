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
    // Three files at a time on two cores: many end-to-end suites spend much of their time waiting (for blocks, child
    // processes, a browser), and a third file uses what they leave; no test asserts a duration, so contention slows
    // the run down, never fails it. On 2 cores the main run took 158 s with three, 189 s with two.
    maxWorkers: 3,
    // A worker process runs its files one after another on the modules it has loaded: loading the engine once per
    // file cost a third of each run (the published build's CommonJS most). No test changes a module's state for the
    // next one: each starts its own chain and closes it, and the few fake timers are put back in a finally. 116 s
    // instead of 158 s for the main run, 36 s instead of 85 s for the second build.
    isolate: false,
  },
})
