/**
 * The ABIs of the developer's own contracts, read once at start from their build output (`--abi`): Foundry's `out/`,
 * Hardhat's `artifacts/`, or any JSON file holding an `abi` array or being one. The console page decodes logs and
 * calls with them. Each event, function and error is kept once, by its signature.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

import type { AbiItem, AbiParameter } from '../rpc/method.ts'

/** The kinds of item that decode something: a log, a call's data, a revert. */
const decoding = new Set(['event', 'function', 'error'])
/** Folders of build output that hold no ABI of their own: Hardhat's compiler inputs and outputs, dependencies. */
const skipped = new Set(['build-info', 'node_modules', 'cache', '.git'])
/** Larger JSON files are compiler outputs, not artifacts. */
const maxFileBytes = 16 * 1024 * 1024
/** A bound on what a page is sent, whatever the folder holds. */
const maxItems = 20_000

export function loadProjectAbis(paths: readonly string[], log: (line: string) => void = () => {}): AbiItem[] {
  const items = new Map<string, AbiItem>()
  let files = 0

  function readFile(path: string): void {
    let parsed: unknown
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'))
    } catch {
      return
    }
    const abi = Array.isArray(parsed) ? parsed : (parsed as { abi?: unknown } | null)?.abi
    if (!Array.isArray(abi)) return
    files++
    for (const item of abi) {
      if (items.size >= maxItems) return
      if (!isAbiItem(item) || !decoding.has(item.type)) continue
      items.set(signatureOf(item), item)
    }
  }

  function visit(path: string): void {
    const stat = statSync(path)
    if (stat.isFile()) {
      if (path.endsWith('.json') && stat.size <= maxFileBytes) readFile(path)
      return
    }
    if (!stat.isDirectory()) return
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory() && skipped.has(entry.name)) continue
      visit(join(path, entry.name))
    }
  }

  for (const path of paths) {
    if (!existsSync(path)) throw new Error(`--abi ${path}: no such file or folder`)
    visit(path)
  }
  if (paths.length > 0) log(`read ${items.size} ABI items from ${files} artifact files`)
  return [...items.values()]
}

function isAbiItem(value: unknown): value is AbiItem {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
}

/** What tells two items apart when decoding: kind, name, and each input's type and whether it is indexed. */
function signatureOf(item: AbiItem): string {
  const parameters = (inputs: AbiParameter[] = []): string =>
    inputs
      .map(
        (input) =>
          `${input.type}${input.components === undefined ? '' : `(${parameters(input.components)})`}${input.indexed === true ? ' indexed' : ''}`,
      )
      .join(',')
  return `${item.type} ${item.name ?? ''}(${parameters(item.inputs)})`
}
