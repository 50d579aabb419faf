import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'contracts/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The machine has two cores; end-to-end suites each start a real server.
    maxWorkers: 2,
  },
})
