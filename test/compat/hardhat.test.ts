/**
 * Hardhat 2 with hardhat-network-helpers 1.x and hardhat-predeploy against the real node: the mocha suite in
 * hardhat/test runs as `hardhat test`, and each of its cases must pass here, on either mining mode. Then Hardhat 3
 * with network helpers 3.x: hardhat3/scripts/networkHelpers.ts runs as `hardhat run`. Then Hardhat Ignition, which
 * reads hardhat_metadata and hardhat_getAutomine.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { getContractAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { hardhat3Project, hardhatProject, runOk, runTool, startNode, useNode } from './tools.ts'

import type { MiningMode, NodeUnderTest, ToolRun } from './tools.ts'

type MochaReport = { tests: { fullTitle: string; err: { message?: string } }[]; pending: { fullTitle: string }[] }

const everywhere = [
  'hardhat-network-helpers 1.x loadFixture deploys once and reverts to it',
  'hardhat-network-helpers 1.x setBalance sets an exact balance',
  'hardhat-network-helpers 1.x impersonateAccount sends from an account with no key',
  'hardhat-predeploy puts its contracts on the node',
]
// Exact block numbers and timestamps: only where the node mines when asked (the mocha suite skips them elsewhere).
const onDemand = [
  'hardhat-network-helpers 1.x, blocks and time mine adds blocks',
  'hardhat-network-helpers 1.x, blocks and time time.increase and time.increaseTo set the next block timestamp',
  'hardhat-network-helpers 1.x, blocks and time takeSnapshot restores balances and the block number',
]

describe.each<MiningMode>(['interval', 'auto'])('hardhat test, --mining %s', (mining) => {
  const cases = mining === 'auto' ? [...everywhere, ...onDemand] : everywhere
  let node: NodeUnderTest
  let run: ToolRun
  let report: MochaReport
  const reportDir = mkdtempSync(join(tmpdir(), 'flashchain-mocha-'))

  beforeAll(async () => {
    node = await startNode(mining)
    const reportFile = join(reportDir, 'report.json')
    run = await runTool('hardhat', ['test', '--no-compile'], {
      cwd: hardhatProject,
      env: { FLASHCHAIN_URL: node.url, MINING: mining, MOCHA_REPORT: reportFile },
    })
    if (!existsSync(reportFile)) throw new Error(`hardhat test wrote no report (exit ${run.code}):\n${run.stderr}${run.stdout}`)
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as MochaReport
  }, 120_000)

  afterAll(async () => {
    await node?.close()
    rmSync(reportDir, { recursive: true, force: true })
  })

  it('runs every case of the suite', () => {
    const ran = report.tests.map((test) => test.fullTitle).filter((title) => !report.pending.some((skipped) => skipped.fullTitle === title))
    expect(ran.sort()).toEqual([...cases].sort())
    // mocha's exit code is the number of failed cases.
    expect(run.code).toBe(report.tests.filter((test) => test.err.message !== undefined).length)
  })

  it.each(cases)('%s', (title) => {
    const test = report.tests.find((candidate) => candidate.fullTitle === title)
    expect(test?.err.message).toBeUndefined()
  })
})

describe.each<MiningMode>(['interval', 'auto'])('Hardhat 3 with hardhat-network-helpers 3.x, --mining %s', (mining) => {
  const node = useNode(mining)

  it('hardhat run scripts/networkHelpers.ts passes each of its checks', async () => {
    const run = await runTool('hardhat3', ['run', '--network', 'target', '--no-compile', 'scripts/networkHelpers.ts'], {
      cwd: hardhat3Project,
      env: { FLASHCHAIN_URL: node().url, MINING: mining },
    })
    expect(run.stderr).toBe('')
    const checks = ['ok setBalance', 'ok impersonateAccount', 'ok takeSnapshot', ...(mining === 'auto' ? ['ok mine', 'ok time'] : [])]
    expect(run.stdout.trim().split('\n')).toEqual(checks)
    expect(run.code).toBe(0)
  }, 120_000)
})

describe.each<MiningMode>(['interval', 'auto'])('Hardhat Ignition 0.15, --mining %s', (mining) => {
  const node = useNode(mining)

  it('hardhat ignition deploy runs a module to its end', async () => {
    // Ignition takes a node whose hardhat_getAutomine is true as automined; elsewhere it waits for 5 confirmations.
    const run = await runTool('hardhat', ['ignition', 'deploy', 'ignition/modules/Counter.js', '--deployment-id', `compat-${mining}`, '--reset'], {
      cwd: hardhatProject,
      env: { FLASHCHAIN_URL: node().url },
    })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const counter = getContractAddress({ from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', nonce: 0n })
    expect(run.stdout).toContain('[ CounterModule ] successfully deployed')
    expect(run.stdout).toContain(`CounterModule#Counter - ${counter}`)
    expect((await runOk('cast', ['call', counter, 'number()(uint256)', '--rpc-url', node().url])).trim()).toBe('8')
  }, 120_000)
})
