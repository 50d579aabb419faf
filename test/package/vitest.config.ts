import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    globalSetup: './globalSetup.ts',
    setupFiles: './snapshots.ts',
    // One chain for the run: files take turns on it. prool.test.ts shows a chain per worker instead.
    fileParallelism: false,
  },
})
