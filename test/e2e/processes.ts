import { spawn } from 'node:child_process'
import { join } from 'node:path'

import type { ChildProcess } from 'node:child_process'

const root = join(import.meta.dirname, '..', '..')

/** Starts the real CLI and resolves with its URL once it prints the listening line (bounded wait). */
export function startCli(dataDir: string, extra: string[] = ['--quiet']): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['src/cli.ts', '--port', '0', '--mining', 'manual', '--data-dir', dataDir, ...extra], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return listening(child)
}

/** Resolves with the URL a started node prints once it listens; rejects if it exits first or takes over 60 s. */
function listening(child: ChildProcess): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    let output = ''
    // A guard against a node that never starts, with room for a loaded machine.
    const timeout = setTimeout(() => reject(new Error(`no listening line within 60 s:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = output.match(/Listening on (http:\/\/\S+)/)
      if (match !== null) {
        clearTimeout(timeout)
        resolve({ child, url: match[1]!, output: () => output })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)))
  })
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.on('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

/** Starts `flashchain follow <source>` and resolves with its URL once it prints the listening line (bounded wait). */
export function startFollower(source: string, extra: string[] = []): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return listening(
    spawn(process.execPath, ['src/cli.ts', 'follow', source, '--port', '0', '--quiet', ...extra], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }),
  )
}
