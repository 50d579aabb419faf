// One data dir, one process; a damaged store is refused at start, never used in silence.
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createPublicClient, createWalletClient, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'

import { flashchainChain } from './helpers.ts'
import { killHard, startCli } from './processes.ts'

import type { ChildProcess } from 'node:child_process'

const devKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const running: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) await killHard(child)
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flashchain-datadir-'))
  dirs.push(dir)
  return dir
}

async function start(dir: string) {
  const node = await startCli(dir)
  running.push(node.child)
  return node
}

/** What a start that must fail prints, and its exit code (bounded wait). */
function refused(dir: string): Promise<{ code: number | null; output: string }> {
  return startCli(dir).then(
    (node) => {
      running.push(node.child)
      throw new Error(`started on ${dir}, which it should have refused`)
    },
    (error: Error) => {
      const match = error.message.match(/exited with (\S+) before listening:\n([\s\S]*)/)
      if (match === null) throw error
      return { code: Number(match[1]), output: match[2]! }
    },
  )
}

describe('one data dir, one process', () => {
  it('a second process on the same data dir exits with one line naming the first one', async () => {
    const dir = dataDir()
    const first = await start(dir)
    const second = await refused(dir)
    expect(second.code).toBe(1)
    expect(second.output.trim()).toBe(`flashchain: ${dir} is in use by another flashchain (PID ${first.child.pid})`)
    // The first is untouched and still answers.
    const client = createPublicClient({ chain: flashchainChain(first.url), transport: http(first.url, { retryCount: 0 }) })
    expect(await client.getChainId()).toBe(31337)
  })

  it('--fresh does not wipe a data dir another process holds', async () => {
    const dir = dataDir()
    await start(dir)
    const fresh = await (async () => {
      try {
        const node = await startCli(dir, ['--quiet', '--fresh'])
        running.push(node.child)
        return 'started'
      } catch (error) {
        return (error as Error).message
      }
    })()
    expect(fresh).toMatch(/is in use by another flashchain/)
    expect(statSync(join(dir, 'chain.sqlite')).size).toBeGreaterThan(0)
  })

  it('the lock of a process killed with -9 does not block a restart', async () => {
    const dir = dataDir()
    const first = await start(dir)
    await killHard(first.child)
    const second = await start(dir)
    const client = createPublicClient({ chain: flashchainChain(second.url), transport: http(second.url, { retryCount: 0 }) })
    expect(await client.getBlockNumber()).toBe(0n)
  })
})

describe('a damaged store', () => {
  it('a write-ahead log cut part way through a frame is refused at start, with what to do', async () => {
    const dir = dataDir()
    const node = await start(dir)
    const chain = flashchainChain(node.url)
    const wallet = createWalletClient({ chain, transport: http(node.url, { retryCount: 0 }), account: privateKeyToAccount(devKey) })
    for (let i = 0; i < 20; i++) await wallet.sendTransaction({ to: `0x${'12'.repeat(20)}`, value: parseEther('0.001') })
    await killHard(node.child)
    const wal = join(dir, 'chain.sqlite-wal')
    const size = statSync(wal).size
    expect(size).toBeGreaterThan(4096)
    truncateSync(wal, size - 1000)

    const second = await refused(dir)
    expect(second.code).toBe(1)
    expect(second.output).toMatch(/chain\.sqlite-wal ends part way through a frame .*move it aside/s)
  })

  it("after a crash, a database that fails SQLite's quick_check is refused at start", async () => {
    const dir = dataDir()
    const node = await start(dir)
    const client = createPublicClient({ chain: flashchainChain(node.url), transport: http(node.url, { retryCount: 0 }) })
    await client.request({ method: 'anvil_mine' as never, params: ['0x40'] as never })
    // A clean close writes every page into the file itself; its pid file is then put back as a crash leaves it.
    node.child.kill('SIGTERM')
    await new Promise((resolve) => node.child.once('exit', resolve))
    writeFileSync(join(dir, 'flashchain.pid'), '4194303\n')
    // Garbage over the middle of the file, past its header: pages of the blocks table.
    const path = join(dir, 'chain.sqlite')
    const fd = openSync(path, 'r+')
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(statSync(path).size / 2 / 4096) * 4096)
    closeSync(fd)

    const second = await refused(dir)
    expect(second.code).toBe(1)
    expect(second.output).toMatch(/is (damaged|not a database|malformed)/)
  })

  it('the whole database is checked after a process that did not close it, and not after a clean close', async () => {
    const dir = dataDir()
    const checked = /the store was not closed by the last process: checked it whole \(\d+ ms\)/
    const first = await startCli(dir, [])
    running.push(first.child)
    expect(first.output()).not.toMatch(checked)
    first.child.kill('SIGTERM')
    await new Promise((resolve) => first.child.once('exit', resolve))

    const afterClose = await startCli(dir, [])
    running.push(afterClose.child)
    expect(afterClose.output()).not.toMatch(checked)
    await killHard(afterClose.child)

    const afterCrash = await startCli(dir, [])
    running.push(afterCrash.child)
    expect(afterCrash.output()).toMatch(checked)
  })
})
