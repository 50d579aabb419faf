/**
 * Hardhat 2 with hardhat-network-helpers 1.x and hardhat-predeploy against the real node: the mocha suite in
 * hardhat/test runs as `hardhat test`, and each of its cases must pass here, on either mining mode.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { hardhatProject, runTool, startNode } from './tools.ts'

import type { MiningMode, NodeUnderTest, ToolRun } from './tools.ts'

type MochaReport = { tests: { fullTitle: string; err: { message?: string } }[] }

const cases = [
  'hardhat-network-helpers 1.x loadFixture deploys once and reverts to it',
  'hardhat-network-helpers 1.x mine adds blocks',
  'hardhat-network-helpers 1.x time.increase and time.increaseTo set the next block timestamp',
  'hardhat-network-helpers 1.x setBalance sets an exact balance',
  'hardhat-network-helpers 1.x impersonateAccount sends from an account with no key',
  'hardhat-network-helpers 1.x takeSnapshot restores balances and the block number',
  'hardhat-predeploy puts its contracts on the node',
]

describe.each<MiningMode>(['interval', 'auto'])('hardhat test, --mining %s', (mining) => {
  let node: NodeUnderTest
  let run: ToolRun
  let report: MochaReport
  const reportDir = mkdtempSync(join(tmpdir(), 'flashchain-mocha-'))

  beforeAll(async () => {
    node = await startNode(mining)
    const reportFile = join(reportDir, 'report.json')
    run = await runTool('hardhat', ['test', '--no-compile'], {
      cwd: hardhatProject,
      env: { FLASHCHAIN_URL: node.url, MOCHA_REPORT: reportFile },
    })
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as MochaReport
  }, 120_000)

  afterAll(async () => {
    await node?.close()
    rmSync(reportDir, { recursive: true, force: true })
  })

  it('runs every case of the suite', () => {
    expect(report.tests.map((test) => test.fullTitle).sort()).toEqual([...cases].sort())
    // mocha's exit code is the number of failed cases.
    expect(run.code).toBe(report.tests.filter((test) => test.err.message !== undefined).length)
  })

  it.each(cases)('%s', (title) => {
    const test = report.tests.find((candidate) => candidate.fullTitle === title)
    expect(test?.err.message).toBeUndefined()
  })
})
