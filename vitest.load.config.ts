import { configDefaults, defineConfig } from 'vitest/config'

/**
 * The load suites (test/load/): each drives a real server with floods of connections, subscriptions, filters or
 * heavy requests and checks that memory stays bounded and other clients are still answered. They run after the rest
 * of `npm test`, two files at a time: each measures the memory of its own process, and none asserts a latency, so
 * the load one adds to the other's machine makes both slower, never red.
 */
export default defineConfig({
  test: {
    include: ['test/load/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    // Guards against a suite that hangs, with room for a loaded machine; no suite asserts a latency.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
})
