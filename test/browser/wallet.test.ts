// The wallet in a real browser: Debian's chromium, headless, driven by playwright-core. A dApp built on wagmi
// (test/browser/dapp/, bundled here with esbuild) is served from its own origin by a small HTTP server, finds
// flashchain's wallet through EIP-6963 (GET /provider.js, put in the page by flashchain/playwright's init script),
// and runs what dApps run: connect, Sign-In with Ethereum, an EIP-2612 permit, an atomic batch, the fallback of a
// batch where atomicity is unsupported. Under the policy `manual` each approval is clicked in the console page, in a
// second tab; under `approve` a trusted origin runs unattended, and an untrusted one still waits for the click.
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'

import { build } from 'esbuild'
import { getAddress, parseAbi, parseEther, parseSignature, verifyMessage } from 'viem'
import { CHROMIUM, launchChromium, skip } from './chromium.ts'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { flashchainProvider } from '../../src/playwright.ts'
import { consoleDirectory } from '../../src/server/consolePage.ts'
import { deploy, startChain } from '../e2e/helpers.ts'
import { compileSolidity } from '../e2e/walletHelpers.ts'

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Locator, Page } from 'playwright-core'
import type { Hex } from 'viem'
import type { FlashchainOptions } from '../../src/index.ts'
import type { TestChain } from '../e2e/helpers.ts'
import type { Compiled, WalletOptions } from '../e2e/walletHelpers.ts'

/** A name that is not a loopback name, so its origin is not one the node trusts; chromium resolves it to 127.0.0.1. */
const UNTRUSTED_HOST = 'dapp.test'

let browser: Browser
let site: Server
let sitePort: number
let dappScript: string
let permitToken: Compiled
/** Uncaught errors of the pages' scripts; each test ends with none. */
const pageErrors: Error[] = []

/** What the dApp's flows answer (test/browser/dapp/main.ts); its types need the DOM, which this file does not load. */
type BatchResult = { id: string; status: string; statusCode: number; atomic: boolean; receipts: { transactionHash: Hex; status: string }[] }
type RequestOutcome = { result?: unknown; error?: { code: number; message: string } }

/** Runs one of window.dapp's flows in the page; arguments cross as JSON. */
function dapp<T>(page: Page, flow: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(`dapp.${flow}(...${JSON.stringify(args)})`) as Promise<T>
}

/**
 * The dApp's page (`/`) and a page that loads the provider with a plain script tag (`/tag`), both for the node in
 * `?node=`, and an empty page (`/blank`): one server, reached as 127.0.0.1, localhost or the untrusted name, gives
 * three origins.
 */
function serveSite(request: { url?: string | undefined }, response: import('node:http').ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://site')
  const node = url.searchParams.get('node') ?? ''
  const html = (body: string) =>
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>dApp</title>${body}`)
  if (url.pathname === '/') html('<script src="/dapp.js"></script>')
  else if (url.pathname === '/tag') html(`<script src="${new URL('/provider.js?ethereum', node).href}"></script>`)
  else if (url.pathname === '/blank') html('')
  else if (url.pathname === '/dapp.js') response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(dappScript)
  else response.writeHead(404).end()
}

async function startNode(options: WalletOptions): Promise<TestChain> {
  // Auto mining seals each transaction at once, so a batch's status is final without waiting for a block time.
  return startChain({ mining: 'auto', ...options } as FlashchainOptions)
}

/** The dApp in its own browser context, with flashchain's provider put in by the exported init script. */
async function openDapp(t: TestChain, host = '127.0.0.1'): Promise<Page> {
  const context = await browser.newContext()
  await context.addInitScript(await flashchainProvider(t.url))
  const page = await context.newPage()
  page.setDefaultTimeout(10_000)
  page.on('pageerror', (error) => pageErrors.push(error))
  await page.goto(`http://${host}:${sitePort}/?node=${encodeURIComponent(t.url)}`)
  await page.waitForFunction('window.dapp !== undefined')
  return page
}

/** The node's console page on its Wallet view: the second tab where a person approves. */
async function openConsole(t: TestChain): Promise<Page> {
  const page = await (await browser.newContext()).newPage()
  page.setDefaultTimeout(10_000)
  page.on('pageerror', (error) => pageErrors.push(error))
  await page.goto(`${t.url}/#/wallet`)
  return page
}

/** Waits for the approval of `key` in the console page; `check` reads it before Approve is clicked. */
async function clickApprove(page: Page, key: string, check: (approval: Locator) => Promise<void> = async () => {}): Promise<void> {
  const approval = page.locator(`[data-testid=approval][data-key=${key}]`).first()
  await approval.waitFor()
  const id = await approval.getAttribute('data-id')
  await check(approval)
  await approval.getByTestId('approve').click()
  await page.locator(`[data-testid=approval][data-id="${id}"]`).waitFor({ state: 'detached' })
}

const tokenAbi = parseAbi([
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function nonces(address owner) view returns (uint256)',
])

/** A token holding 1000 PMT for `holder`, deployed by dev account 9. */
async function deployPermitToken(t: TestChain, holder: Hex): Promise<Hex> {
  const { hash, address } = await deploy(t, permitToken, [holder, parseEther('1000')], 9)
  expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
  return address
}

/**
 * The dApp's flows, one after the other. `approve` is where a person would click: for `manual` it clicks in the
 * console page and checks what the page shows; unattended it does nothing.
 */
async function runFlows(
  t: TestChain,
  page: Page,
  approve: (key: string, check?: (approval: Locator) => Promise<void>) => Promise<void> = async () => {},
): Promise<Hex> {
  // connect: wagmi's injected connector asks wallet_requestPermissions, which the policy answers as eth_requestAccounts.
  const connecting = dapp<{ accounts: Hex[]; chainId: number }>(page, 'connect')
  await approve('eth_requestAccounts')
  const { accounts, chainId } = await connecting
  expect(chainId).toBe(31337)
  const account = accounts[0]!
  expect(account).toBe(getAddress(t.accounts[0]!.address))

  // Sign-In with Ethereum: the message shown as text, verified by viem as a backend would.
  const signingIn = dapp<{ address: Hex; message: string; signature: Hex }>(page, 'signIn', 'flashchainNonce1')
  await approve('personal_sign', async (approval) => {
    expect(await approval.getByTestId('sign-message').textContent()).toContain('wants you to sign in with your Ethereum account')
  })
  const login = await signingIn
  expect(login.message).toContain(`${new URL(page.url()).host} wants you to sign in with your Ethereum account:\n${account}`)
  expect(await verifyMessage({ address: account, message: login.message, signature: login.signature })).toBe(true)

  // EIP-2612: the dApp signs a permit, a relayer (dev account 5) submits it, and the token checks it on chain.
  const token = await deployPermitToken(t, account)
  const spender = t.accounts[5]!.address
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
  const permitting = dapp<{ owner: Hex; signature: Hex }>(page, 'signPermit', token, spender, parseEther('100').toString(), deadline.toString())
  await approve('eth_signTypedData_v4', async (approval) => {
    const domain = approval.getByTestId('sign-domain')
    expect(await domain.locator('[data-field=name]').textContent()).toContain('Permit Token')
    expect(await domain.locator('[data-field=chainId]').textContent()).toContain('31337')
    expect(await domain.locator('[data-field=verifyingContract] a').getAttribute('title')).toBe(getAddress(token))
    const fields = approval.getByTestId('sign-fields')
    expect(await fields.locator('[data-field=value]').textContent()).toContain(parseEther('100').toString())
    expect(await fields.locator('[data-field=spender] a').getAttribute('title')).toBe(spender)
    // The README's picture of a signing request, taken again with UPDATE_SCREENSHOTS=1.
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      const png = await approval.page().screenshot({ path: fileURLToPath(new URL('../../docs/screenshots/signing.png', import.meta.url)) })
      expect(png.length).toBeGreaterThan(15_000)
    }
  })
  const permit = await permitting
  const { v, r, s } = parseSignature(permit.signature)
  const hash = await t.wallet(5).writeContract({
    address: token,
    abi: tokenAbi,
    functionName: 'permit',
    args: [account, spender, parseEther('100'), deadline, Number(v), r, s],
  })
  expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
  expect(await t.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'allowance', args: [account, spender] })).toBe(
    parseEther('100'),
  )

  // An atomic batch through wagmi's sendCalls: an ether transfer and a token transfer, in one transaction.
  const recipient = t.accounts[6]!.address
  const before = await t.publicClient.getBalance({ address: recipient })
  const sending = dapp<BatchResult>(
    page,
    'sendBatch',
    [
      { to: recipient, value: parseEther('1').toString() },
      { to: recipient, transfer: { token, amount: '5' } },
    ],
    {
      forceAtomic: true,
    },
  )
  await approve('wallet_sendCalls', async (approval) => {
    expect(await approval.getByTestId('approval-call').count()).toBe(2)
  })
  // The account's first atomic batch delegates it to the batch executor (EIP-7702): a prompt of its own.
  await approve('upgrade')
  const batch = await sending
  expect(batch).toMatchObject({ statusCode: 200, status: 'success', atomic: true })
  expect(batch.receipts).toHaveLength(1)
  expect(await t.publicClient.getBalance({ address: recipient })).toBe(before + parseEther('1'))
  expect(await t.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [recipient] })).toBe(5n)
  return account
}

describe.skipIf(skip)(
  skip ? `the wallet in a browser (skipped: ${CHROMIUM} is not installed; apt-get install chromium)` : 'the wallet in a browser',
  () => {
    beforeAll(async () => {
      if (!existsSync(`${consoleDirectory}provider.js`)) throw new Error('provider.js is not built: run npm run build:console')
      const bundle = await build({
        entryPoints: [fileURLToPath(new URL('./dapp/main.ts', import.meta.url))],
        bundle: true,
        write: false,
        format: 'iife',
        target: 'es2022',
        jsx: 'automatic',
        // React picks its production build by this; the test wants the one a dApp ships.
        define: { 'process.env.NODE_ENV': '"production"' },
        logLevel: 'warning',
      })
      dappScript = bundle.outputFiles[0]!.text
      permitToken = compileSolidity(readFileSync(new URL('./dapp/PermitToken.sol', import.meta.url), 'utf8'), 'PermitToken')
      site = createServer(serveSite)
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
      sitePort = (site.address() as AddressInfo).port
      browser = await launchChromium([`--host-resolver-rules=MAP ${UNTRUSTED_HOST} 127.0.0.1`])
    }, 60_000)

    afterAll(async () => {
      await browser?.close()
      await new Promise((resolve) => site?.close(resolve))
    }, 30_000)

    afterEach(() => {
      expect(pageErrors.splice(0).map((error) => error.message)).toEqual([])
    })

    describe('policy manual: every approval clicked in the console page', () => {
      let t: TestChain
      beforeAll(async () => {
        t = await startNode({ approval: 'manual' })
      })
      afterAll(async () => {
        await t?.close()
      })

      it('connects through EIP-6963, signs in with SIWE, signs a permit verified on chain, and sends an atomic batch (200)', async () => {
        const page = await openDapp(t)
        expect(await dapp(page, 'announced')).toContainEqual({
          id: 'dev.flashchain',
          name: 'flashchain',
          icon: expect.stringMatching(/^data:image\/svg\+xml,/),
        })
        const consolePage = await openConsole(t)
        const origin = new URL(page.url()).origin
        const account = await runFlows(t, page, (key, check) => clickApprove(consolePage, key, check))

        // The grant was heard as accountsChanged; a Revoke in the console page is heard too, as no accounts.
        const { result: granted } = await dapp<RequestOutcome>(page, 'request', 'eth_accounts')
        expect((granted as Hex[])[0]).toBe(account.toLowerCase())
        expect(await dapp<string[][]>(page, 'accountsChanged')).toEqual([granted])
        await consolePage.locator(`[data-testid=grant-row][data-origin="${origin}"]`).getByRole('button', { name: 'Revoke' }).click()
        await expect.poll(() => dapp<string[][]>(page, 'accountsChanged'), { timeout: 5000 }).toEqual([granted, []])
        await page.context().close()
        await consolePage.context().close()
      })
    })

    describe('policy approve: a trusted origin runs unattended, an untrusted one waits for the click', () => {
      let t: TestChain
      beforeAll(async () => {
        t = await startNode({ approval: 'approve' })
      })
      afterAll(async () => {
        await t?.close()
      })

      it('the same flows on a loopback origin, with no click', async () => {
        const page = await openDapp(t)
        await runFlows(t, page)
        expect(await t.rpc('flashchain_getPendingApprovals')).toEqual([])
        await page.context().close()
      })

      it(`on ${UNTRUSTED_HOST}, connecting and signing wait in the queue until clicked`, async () => {
        const page = await openDapp(t, UNTRUSTED_HOST)
        const origin = `http://${UNTRUSTED_HOST}:${sitePort}`
        const consolePage = await openConsole(t)
        const connecting = dapp<{ accounts: Hex[] }>(page, 'connect')
        await clickApprove(consolePage, 'eth_requestAccounts', async (approval) => {
          expect(await approval.textContent()).toContain(`from ${origin}`)
        })
        const [account] = (await connecting).accounts

        const signingIn = dapp<{ message: string; signature: Hex }>(page, 'signIn', 'flashchainNonce2')
        const [waiting] = await pendingOf(t, 'personal_sign')
        expect(waiting).toMatchObject({ method: 'personal_sign', origin })
        await clickApprove(consolePage, 'personal_sign')
        const login = await signingIn
        expect(await verifyMessage({ address: account!, message: login.message, signature: login.signature })).toBe(true)
        await page.context().close()
        await consolePage.context().close()
      })
    })

    describe('atomic status unsupported: the batch takes its fallback path', () => {
      let t: TestChain
      let page: Page
      let account: Hex
      beforeAll(async () => {
        t = await startNode({ approval: 'approve' })
        page = await openDapp(t)
        ;[account] = (await dapp<{ accounts: Hex[] }>(page, 'connect')).accounts as [Hex]
        expect(await t.rpc('flashchain_setAtomicStatus', [account, 'unsupported'])).toBe(true)
      })
      afterAll(async () => {
        await page?.context().close()
        await t?.close()
      })

      it('wallet_getCapabilities reports it, and wallet_sendCalls answers 5710 EIP-7702 not supported', async () => {
        expect(await dapp(page, 'capabilities')).toMatchObject({ atomic: { status: 'unsupported' } })
        const outcome = await dapp<RequestOutcome>(page, 'request', 'wallet_sendCalls', [
          { version: '2.0.0', from: account, chainId: '0x7a69', atomicRequired: false, calls: [{ to: t.accounts[7]!.address, value: '0x1' }] },
        ])
        // viem's experimental_fallback recognizes the words "EIP-7702 not supported" in the message.
        expect(outcome.error).toEqual({ code: 5710, message: expect.stringMatching(/^EIP-7702 not supported/) })
      })

      for (const flow of ['viemSendBatch', 'sendBatch'] as const) {
        it(`${flow === 'sendBatch' ? "wagmi's" : "viem's"} sendCalls with experimental_fallback sends one transaction per call, and they land`, async () => {
          const recipient = t.accounts[7]!.address
          const before = await t.publicClient.getBalance({ address: recipient })
          const calls = [
            { to: recipient, value: parseEther('0.25').toString() },
            { to: recipient, value: parseEther('0.5').toString() },
          ]
          const batch = await dapp<BatchResult>(page, flow, calls, ...(flow === 'sendBatch' ? [{ fallback: true }] : []))
          // viem marks the id of a batch it sent itself, and reads the receipts without asking the wallet.
          expect(batch.id.endsWith('5792'.repeat(16))).toBe(true)
          expect(batch).toMatchObject({ statusCode: 200, status: 'success', atomic: false })
          expect(batch.receipts.map((receipt) => receipt.status)).toEqual(['success', 'success'])
          expect(await t.publicClient.getBalance({ address: recipient })).toBe(before + parseEther('0.75'))
        })
      }
    })

    describe('a page without a grant', () => {
      let t: TestChain
      beforeAll(async () => {
        t = await startNode({ approval: 'approve' })
      })
      afterAll(async () => {
        await t?.close()
      })

      it('loads provider.js with a script tag, is announced and set as window.ethereum, and gets 4100 from wallet methods', async () => {
        const context = await browser.newContext()
        const page = await context.newPage()
        page.setDefaultTimeout(10_000)
        page.on('pageerror', (error) => pageErrors.push(error))
        await page.goto(`http://localhost:${sitePort}/tag?node=${encodeURIComponent(t.url)}`)
        const announced = await page.evaluate(`new Promise((resolve) => {
        addEventListener('eip6963:announceProvider', (event) => resolve(event.detail.info), { once: true })
        dispatchEvent(new Event('eip6963:requestProvider'))
      })`)
        expect(announced).toMatchObject({ name: 'flashchain', rdns: 'dev.flashchain', uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) })
        const request = (method: string, params: unknown[]) =>
          page.evaluate(
            `ethereum.request(${JSON.stringify({ method, params })}).then((result) => ({ result }), (error) => ({ error: { code: error.code, message: error.message } }))`,
          ) as Promise<RequestOutcome>
        expect(await request('eth_chainId', [])).toEqual({ result: '0x7a69' })
        expect(await request('eth_accounts', [])).toEqual({ result: [] })
        const account = t.accounts[0]!.address
        for (const [method, params] of [
          ['personal_sign', ['0x68656c6c6f', account]],
          ['eth_sendTransaction', [{ from: account, to: t.accounts[1]!.address, value: '0x1' }]],
        ] as const) {
          const outcome = await request(method, [...params])
          expect({ method, code: outcome.error?.code }).toEqual({ method, code: 4100 })
        }
        await context.close()
      })
    })

    describe('the connection', () => {
      it('emits connect, disconnect (4900) when the node goes away, and connect and chainChanged when it is back with another chain', async () => {
        const first = await startNode({})
        const port = Number(new URL(first.url).port)
        let second: TestChain | undefined
        const context = await browser.newContext()
        try {
          await context.addInitScript(await flashchainProvider(first.url, { windowEthereum: true }))
          // Listeners from the page's first script, as a dApp registers them.
          await context.addInitScript({
            content: `window.events = []
              for (const name of ['connect', 'disconnect', 'chainChanged'])
                ethereum.on(name, (payload) => events.push([name, typeof payload === 'object' ? { chainId: payload.chainId, code: payload.code } : payload]))`,
          })
          const page = await context.newPage()
          page.on('pageerror', (error) => pageErrors.push(error))
          await page.goto(`http://127.0.0.1:${sitePort}/blank`)
          const events = () => page.evaluate('window.events') as Promise<unknown[]>
          await expect.poll(events, { timeout: 5000 }).toEqual([['connect', { chainId: '0x7a69' }]])

          await first.close()
          await expect.poll(events, { timeout: 5000 }).toEqual([
            ['connect', { chainId: '0x7a69' }],
            ['disconnect', { code: 4900 }],
          ])
          second = await startNode({ port, chainId: 8453n })
          await expect.poll(events, { timeout: 10_000 }).toEqual([
            ['connect', { chainId: '0x7a69' }],
            ['disconnect', { code: 4900 }],
            ['connect', { chainId: '0x2105' }],
            ['chainChanged', '0x2105'],
          ])
        } finally {
          await context.close()
          await second?.close()
        }
      })
    })
  },
)

/** Waits (bounded) for an approval of `key` in the queue. */
async function pendingOf(t: TestChain, key: string): Promise<{ method: string; origin: string | null }[]> {
  let list: { key: string; method: string; origin: string | null }[] = []
  await expect
    .poll(async () => (list = (await t.rpc<typeof list>('flashchain_getPendingApprovals')).filter((approval) => approval.key === key)).length, {
      timeout: 5000,
    })
    .toBeGreaterThan(0)
  return list
}
