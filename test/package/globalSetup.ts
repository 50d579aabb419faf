// One flashchain for the whole test run, in the process that runs the tests: `mining: 'auto'` seals each
// transaction before its send answers, as anvil and Hardhat do (`'manual'` waits for evm_mine).
import { createFlashchain } from 'flashchain'

import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    flashchainUrl: string
  }
}

export default async function setup(project: TestProject) {
  const flashchain = await createFlashchain({ port: 0, mining: 'auto' })
  project.provide('flashchainUrl', flashchain.url)
  return () => flashchain.close()
}
