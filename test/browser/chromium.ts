/**
 * Debian's chromium, headless, for the browser tests. Locally a machine without it skips them; CI installs it
 * (.ci/run), so there its absence is a failure.
 */
import { existsSync } from 'node:fs'

import { chromium } from 'playwright-core'

import type { Browser } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const installed = existsSync(CHROMIUM)
export const skip = !installed && process.env.CI !== 'true'

/**
 * Starts it with nothing that reaches beyond this machine: without the background-networking flags it keeps trying
 * Google's hosts, which a closed network refuses. `args` adds to the flags.
 */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!installed) throw new Error(`${CHROMIUM} is missing: CI installs Debian's chromium package in .ci/run`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
    timeout: 20_000,
  })
}
