/**
 * What the console page's browser tests share: a page opened on a node in a fresh context, with its uncaught errors
 * kept for the test to check, and screenshots that go to docs/screenshots/ with UPDATE_SCREENSHOTS=1.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { expect } from 'vitest'

import type { Browser, Page } from 'playwright-core'

/** Where screenshots go to stay; undefined when a run writes them to a temporary directory only. */
export const screenshots = process.env.UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : undefined

/** `watch` sees the page before it loads, to follow its requests from the first; `errors` collects its uncaught ones. */
export async function openConsole(browser: Browser, errors: Error[], url: string, route = '', watch?: (page: Page) => void): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } })
  const page = await context.newPage()
  page.setDefaultTimeout(10_000)
  page.on('pageerror', (error) => errors.push(error))
  watch?.(page)
  await page.goto(`${url}/${route}`)
  return page
}

/** Saves a screenshot of the page and checks it holds a real picture, not an empty frame. */
export async function screenshot(page: Page, directory: string, name: string): Promise<void> {
  const path = join(directory, `${name}.png`)
  await page.screenshot({ path })
  const png = readFileSync(path)
  expect(png.subarray(1, 4).toString()).toBe('PNG')
  expect(png.length).toBeGreaterThan(15_000)
}
