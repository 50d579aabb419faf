import { configDefaults, defineConfig } from 'vitest/config'

/**
 * The load suites (test/load/): each drives a real server with floods of connections, subscriptions, filters or
 * heavy requests and checks that memory stays bounded and other clients are still answered. They run one file at a
 * time, after the rest of `npm test`, so that no other suite adds its load to theirs, nor they to another's.
 */
export default defineConfig({
  test: {
    include: ['test/load/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    // Guards against a suite that hangs, with room for a loaded machine; no suite asserts a latency.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
})
