// The console page in a real browser: Debian's chromium, headless, driven by playwright-core, against a real node
// on 127.0.0.1 (interval mining, 200 ms flashblocks), with viem as the dApp. Screenshots of the main views go to
// docs/screenshots/ with UPDATE_SCREENSHOTS=1, else to a temporary directory.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createWalletClient, encodeFunctionData, http, parseAbi, parseEther } from 'viem'
import { CHROMIUM, launchChromium, skip } from './chromium.ts'
import { openConsole, screenshot as saveScreenshot, screenshots } from './consoleHarness.ts'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'

import { createFlashchain } from '../../src/index.ts'
import { consoleDirectory } from '../../src/server/consolePage.ts'
import { Store } from '../e2e/fixtures/contracts.ts'
import { deploy } from '../e2e/helpers.ts'
import { compileToken, DAPP, originClient, sendWith, startWallet } from '../e2e/walletHelpers.ts'

import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import type { BaseError, Hex } from 'viem'
import type { Flashchain } from '../../src/index.ts'
import type { TestChain } from '../e2e/helpers.ts'

const TOKEN = 'console-test-token'

let browser: Browser
let t: TestChain
let shotDirectory: string
let artifacts: string | undefined
/** Uncaught errors of the page's script; each test ends with none. */
const pageErrors: Error[] = []

const openPage = (url: string, route = '', watch?: (page: Page) => void) => openConsole(browser, pageErrors, url, route, watch)

/** The JSON-RPC methods of one request body or WebSocket message: one call, or each of a batch. */
function methodsOf(body: string | null | undefined): string[] {
  if (body === null || body === undefined) return []
  try {
    const parsed = JSON.parse(body) as { method?: string } | { method?: string }[]
    return [parsed].flat().flatMap((call) => (typeof call.method === 'string' ? [call.method] : []))
  } catch {
    return []
  }
}

/** Every JSON-RPC call the page makes, over HTTP and on its WebSockets, as `http method` or `ws method` (with its params). */
function recordCalls(page: Page): string[] {
  const calls: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST') for (const method of methodsOf(request.postData())) calls.push(`http ${method}`)
  })
  page.on('websocket', (socket) =>
    socket.on('framesent', ({ payload }) => {
      const text = String(payload)
      for (const method of methodsOf(text)) calls.push(method === 'eth_subscribe' ? `ws eth_subscribe ${JSON.parse(text).params[0]}` : `ws ${method}`)
    }),
  )
  return calls
}

const screenshot = (page: Page, name: string) => saveScreenshot(page, shotDirectory, name)

const jsonRpcClient = () => createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: t.accounts[0]!.address })

/** The JSON-RPC code of the wallet's error, which viem wraps in its own (TransactionExecutionError). */
const codeOf = (error: BaseError): number | undefined =>
  (error.walk((cause) => typeof (cause as { code?: unknown }).code === 'number') as { code?: number } | null)?.code

const transferAbi = parseAbi(['function transfer(address to, uint256 amount)'])

describe.skipIf(skip)(skip ? `the console page (skipped: ${CHROMIUM} is not installed; apt-get install chromium)` : 'the console page', () => {
  beforeAll(async () => {
    if (!existsSync(join(consoleDirectory, 'index.html'))) throw new Error('the console page is not built: run npm run build:console')
    shotDirectory = screenshots ?? mkdtempSync(join(tmpdir(), 'flashchain-console-'))
    mkdirSync(shotDirectory, { recursive: true })
    // The developer's build output, as Foundry writes it: the page decodes Store's logs and calls with it.
    artifacts = mkdtempSync(join(tmpdir(), 'flashchain-artifacts-'))
    mkdirSync(join(artifacts, 'Store.sol'))
    writeFileSync(join(artifacts, 'Store.sol', 'Store.json'), JSON.stringify({ abi: Store.abi, bytecode: { object: Store.bytecode } }))
    t = await startWallet({ mining: 'interval', abi: [artifacts] } as never)
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await t?.close()
    if (screenshots === undefined && shotDirectory !== undefined) rmSync(shotDirectory, { recursive: true, force: true })
    if (artifacts !== undefined) rmSync(artifacts, { recursive: true, force: true })
  }, 30_000)

  afterEach(() => {
    expect(pageErrors.map((error) => error.message)).toEqual([])
  })

  it('shows a transaction sent with viem in the flashblock that pre-confirms it, with both heads', async () => {
    const page = await openPage(t.url)
    // Sent once a block has started under the page's eyes, so that every flashblock of its block has its index.
    await page.locator('[data-testid=flashblock][data-index="0"]').first().waitFor()
    const hash = await t.wallet(0).sendTransaction({ to: t.accounts[1]!.address, value: parseEther('1') })

    const row = page.locator(`[data-testid=flash-tx][data-hash="${hash}"]`)
    await row.waitFor()
    const { blockNumber } = await t.publicClient.getTransactionReceipt({ hash })
    expect(await row.locator(`a[title="${t.accounts[0]!.address}"]`).count()).toBe(1)
    // The page subscribed before the send, so it saw the transaction arrive and can time its pre-confirmation.
    expect(await row.locator('td').last().textContent()).toMatch(/^\d+ ms$/)
    const block = page.locator(`[data-testid=timeline-block][data-number="${blockNumber}"]`)
    expect(await block.locator('[data-testid=flashblock]').count()).toBeGreaterThan(0)
    // Sealed two seconds later at most; the latest head then names that block.
    await block.getByText('sealed').waitFor()
    expect(Number(await page.getByTestId('head-latest').getAttribute('data-number'))).toBeGreaterThanOrEqual(Number(blockNumber))
    await expect.poll(async () => Number(await page.getByTestId('head-pending').getAttribute('data-number'))).toBeGreaterThan(Number(blockNumber))
    await screenshot(page, 'flashblocks')
    await page.context().close()
  })

  it('measures the time from a flashblock on a WebSocket subscriber to its cell on the page', async () => {
    // The reference: a Node subscriber to newFlashblocks, indexing flashblocks as the page does, from a block it saw
    // start. The page's side: when each flashblock's cell enters the DOM.
    const socket = new WebSocket(t.url.replace(/^http/, 'ws'))
    const arrived = new Map<string, number>()
    let sealed: bigint | undefined
    const counts = new Map<bigint, number>()
    // Which subscription is newHeads: a pending block carries the hash of the block as built so far, so only the
    // subscription tells a sealed header from a flashblock.
    let heads: string | undefined
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id?: string
        result?: string
        params?: { subscription: string; result: { number: Hex } }
      }
      if (message.id === 'newHeads') heads = message.result
      const block = message.params?.result
      if (block === undefined) return
      const number = BigInt(block.number)
      if (message.params!.subscription === heads) sealed = number
      else if (counts.has(number) || sealed === number - 1n) {
        const index = counts.get(number) ?? 0
        counts.set(number, index + 1)
        arrived.set(`${number}:${index}`, Date.now())
      }
    })
    await new Promise((resolve) => socket.once('open', resolve))
    for (const kind of ['newHeads', 'newFlashblocks'])
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: kind, method: 'eth_subscribe', params: [kind] }))

    const context = await browser.newContext()
    // Page-side code as text: it runs in the browser, where this file's Node types do not apply.
    await context.addInitScript({
      content: `
        const shown = (window.flashblocksShown = {})
        new MutationObserver(() => {
          for (const cell of document.querySelectorAll('[data-testid=flashblock][data-index]')) {
            shown[cell.dataset.number + ':' + cell.dataset.index] ??= Date.now()
          }
        }).observe(document, { childList: true, subtree: true })`,
    })
    const page = await context.newPage()
    await page.goto(t.url)
    // Two blocks of ten flashblocks, with a transfer in some of them.
    for (let i = 0; i < 8; i++) {
      await t.wallet(2).sendTransaction({ to: t.accounts[3]!.address, value: 1n })
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    const shown = (await page.evaluate('window.flashblocksShown')) as Record<string, number>
    socket.close()
    await context.close()

    const delays = Object.entries(shown)
      .filter(([key]) => arrived.has(key))
      .map(([key, at]) => at - arrived.get(key)!)
      .sort((a, b) => a - b)
    expect(delays.length).toBeGreaterThan(10)
    const at = (quantile: number) => delays[Math.min(delays.length - 1, Math.floor(quantile * delays.length))]
    process.stdout.write(`flashblock → page: median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${delays.at(-1)} ms over ${delays.length} flashblocks\n`)
  })

  it('a wallet_sendCalls under policy manual waits in the queue: Approve completes it (status 200), Reject gives viem 4001', async () => {
    const page = await openPage(t.url, '#/wallet')
    await page.getByTestId('policy-add-key').selectOption('wallet_sendCalls')
    await page.getByTestId('policy-add-decision').selectOption('manual')
    await page.getByTestId('policy-add').click()
    await expect
      .poll(() => t.rpc<{ methods: Record<string, string> }>('flashchain_getApprovalPolicy').then((policy) => policy.methods))
      .toEqual({
        wallet_sendCalls: 'manual',
      })

    const client = jsonRpcClient()
    const recipient = t.accounts[4]!.address
    const sending = client.sendCalls({
      forceAtomic: true,
      calls: [
        { to: recipient, value: parseEther('0.5') },
        { to: t.accounts[5]!.address, data: encodeFunctionData({ abi: transferAbi, functionName: 'transfer', args: [recipient, 7n] }) },
      ],
    })
    const approval = page.locator('[data-testid=approval][data-key=wallet_sendCalls]')
    await approval.waitFor()
    expect(await approval.getByTestId('approval-call').allTextContents()).toEqual([
      expect.stringContaining('0.5 ETH'),
      expect.stringMatching(/transfer\(to: 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}, amount: 7\)/),
    ])
    await screenshot(page, 'approval')
    await approval.getByTestId('approve').click()
    const { id } = await sending
    await page.locator(`[data-testid=batch-row][data-id="${id}"][data-status="200"]`).waitFor()

    const rejected = client.sendCalls({ calls: [{ to: recipient, value: 1n }] }).then(() => undefined, codeOf)
    await approval.waitFor()
    await approval.getByTestId('reject').click()
    expect(await rejected).toBe(4001)
    await page.getByText('nothing waiting').waitFor()
    await page.context().close()
  })

  it('takes the waiting approvals from its WebSocket subscription: a prompt shows and goes once resolved, and the page never asks for the list', async () => {
    const policy = await t.rpc<{ default: string; methods: Record<string, string> }>('flashchain_getApprovalPolicy')
    await t.rpc('flashchain_setApprovalPolicy', [{ ...policy, methods: { ...policy.methods, personal_sign: 'manual' } }])
    let calls: string[] = []
    const page = await openPage(t.url, '#/wallet', (opening) => {
      calls = recordCalls(opening)
    })
    const queue = page.getByTestId('approval-queue')
    await queue.getByText('nothing waiting').waitFor()

    const signing = t.send('personal_sign', ['0x73756273637269626564', t.accounts[0]!.address])
    const message = page.locator('[data-testid=approval][data-key=personal_sign]')
    await message.waitFor()
    expect(await message.getByTestId('sign-message').textContent()).toBe('subscribed')
    await message.getByTestId('approve').click()
    expect((await signing).result).toMatch(/^0x[0-9a-f]{130}$/)
    await queue.getByText('nothing waiting').waitFor()
    // Long enough for a few rounds of any poll the page might still run.
    await new Promise((resolve) => setTimeout(resolve, 1500))

    expect(calls.filter((call) => call.includes('pendingApprovals') || call.includes('PendingApprovals'))).toEqual([
      'ws eth_subscribe flashchain_pendingApprovals',
    ])
    expect(calls).toContain('http flashchain_resolveApproval')
    await t.rpc('flashchain_setApprovalPolicy', [policy])
    await page.context().close()
  })

  it("finds the batch's transaction by its hash: execute decoded with its calls, the receipt and the call trace", async () => {
    const batches = await t.rpc<{ id: string }[]>('flashchain_getBatches', [{ limit: 1 }])
    const status = await t.rpc<{ receipts: { transactionHash: Hex }[] }>('wallet_getCallsStatus', [batches[0]!.id])
    const hash = status.receipts[0]!.transactionHash
    const page = await openPage(t.url, '#/blocks')
    await page.getByTestId('block-row').first().waitFor()
    await page.getByTestId('search').fill(hash)
    await page.getByTestId('search').press('Enter')
    const detail = page.getByTestId('tx-detail')
    await detail.getByText('execute').first().waitFor()
    expect(await page.getByTestId('tx-status').textContent()).toMatch(/^success in #\d+/)
    // The batch executor's two calls, as children of the top call.
    await page.getByTestId('trace-frame').nth(2).waitFor()
    expect(await page.getByTestId('trace-frame').count()).toBe(3)
    await screenshot(page, 'transaction')
    await page.context().close()
  })

  it('a signing request shows what it signs: bytes that are not text as hex, a transaction to sign without sending', async () => {
    const policy = await t.rpc<{ default: string; methods: Record<string, string> }>('flashchain_getApprovalPolicy')
    await t.rpc('flashchain_setApprovalPolicy', [
      { ...policy, methods: { ...policy.methods, personal_sign: 'manual', eth_signTransaction: 'manual' } },
    ])
    const page = await openPage(t.url, '#/wallet')
    const from = t.accounts[0]!.address
    const signing = t.send('personal_sign', ['0xdeadbeef00', from])
    const message = page.locator('[data-testid=approval][data-key=personal_sign]')
    await message.waitFor()
    expect(await message.getByTestId('sign-message').textContent()).toBe('0xdeadbeef00')
    expect(await message.textContent()).toContain('(bytes that are not text, in hex)')
    await message.getByTestId('approve').click()
    expect((await signing).result).toMatch(/^0x[0-9a-f]{130}$/)

    const signingTx = t.send('eth_signTransaction', [{ from, to: t.accounts[1]!.address, value: '0xde0b6b3a7640000' }])
    const tx = page.locator('[data-testid=approval][data-key=eth_signTransaction]')
    await tx.waitFor()
    expect(await tx.textContent()).toContain('sign, without sending, a transaction from')
    expect(await tx.textContent()).toContain('1 ETH')
    await tx.getByTestId('reject').click()
    expect((await signingTx).error?.code).toBe(4001)
    await t.rpc('flashchain_setApprovalPolicy', [policy])
    await page.context().close()
  })

  it("decodes the developer's own contract with the ABI the node read from its build output (--abi)", async () => {
    const deployed = await deploy(t, Store, [0n], 3)
    await t.publicClient.waitForTransactionReceipt({ hash: deployed.hash })
    const store = deployed.address
    // Its own gas: an estimate runs on `latest`, where the contract is not yet if its block has not sealed.
    const hash = await t.wallet(3).writeContract({ address: store, abi: Store.abi, functionName: 'set', args: [77n], gas: 100_000n })
    await t.publicClient.waitForTransactionReceipt({ hash })
    const page = await openPage(t.url, `#/tx/${hash}`)
    const detail = page.getByTestId('tx-detail')
    // The call, and its log: ValueSet(value, by), neither of them a standard's.
    await detail.getByText('ValueSet').waitFor()
    expect(await detail.getByTestId('log-row').first().textContent()).toContain('77')
    await detail.getByText('set', { exact: true }).first().waitFor()
    await page.context().close()
  })

  it('wallet_watchAsset adds the token to the list with its balance', async () => {
    const { hash, address } = await deploy(t, compileToken(), ['CON', 2], 0)
    await t.publicClient.waitForTransactionReceipt({ hash })
    expect(await jsonRpcClient().watchAsset({ type: 'ERC20', options: { address, symbol: 'CON', decimals: 2 } })).toBe(true)

    const page = await openPage(t.url, '#/wallet')
    const row = page.locator(`[data-testid=token-row][data-token="${address}"]`)
    await row.waitFor()
    expect(await row.getAttribute('data-account')).toBe(t.accounts[0]!.address.toLowerCase())
    // The constructor gave the deployer 1000 units: 10 tokens of 2 decimals.
    expect(await row.getByTestId('token-balance').textContent()).toBe('10 CON')
    await screenshot(page, 'wallet')
    await page.context().close()
  })

  it("lists an origin's grant, and Revoke takes its accounts away", async () => {
    const dapp = originClient(t, DAPP)
    expect((await dapp.rpc<Hex[]>('eth_requestAccounts')).length).toBeGreaterThan(0)
    const page = await openPage(t.url, '#/wallet')
    const row = page.locator(`[data-testid=grant-row][data-origin="${DAPP}"]`)
    await row.getByRole('button', { name: 'Revoke' }).click()
    await row.waitFor({ state: 'detached' })
    expect(await dapp.rpc<Hex[]>('eth_accounts')).toEqual([])
    await page.context().close()
  })

  it("lists the wallet's accounts with balances, nonces and the EIP-7702 delegation of the one that sent an atomic batch", async () => {
    const page = await openPage(t.url, '#/accounts')
    const first = page.locator(`[data-testid=account-row][data-address="${t.accounts[0]!.address.toLowerCase()}"]`)
    expect(await first.getByTestId('delegation').textContent()).toBe('delegated to 0x7821…7821 (batch executor)')
    expect(await page.getByTestId('account-row').count()).toBe(t.accounts.length)
    await screenshot(page, 'accounts')
    await page.context().close()
  })

  it('dev actions: fund an account, take a snapshot, mine, and restore the snapshot', async () => {
    const page = await openPage(t.url, '#/dev')
    const account = '0x00000000000000000000000000000000000c0450'
    await page.getByTestId('fund-address').fill(account)
    await page.getByTestId('fund-amount').fill('5')
    await page.getByTestId('fund-set').click()
    await expect.poll(() => t.publicClient.getBalance({ address: account })).toBe(parseEther('5'))

    await page.getByTestId('snapshot').click()
    await page.getByTestId('snapshot-row').waitFor()
    await page.getByTestId('fund-add').click()
    await expect.poll(() => t.publicClient.getBalance({ address: account })).toBe(parseEther('10'))
    const before = await t.blockNumber()
    await page.getByTestId('mine').click()
    await expect.poll(() => page.getByTestId('dev-message').textContent()).toBe('mined a block')
    expect(await t.blockNumber()).toBeGreaterThan(before)
    await screenshot(page, 'dev')

    await page.getByRole('button', { name: 'Restore' }).click()
    await expect.poll(() => page.getByTestId('dev-message').textContent()).toMatch(/^restored snapshot \d+$/)
    expect(await page.getByTestId('snapshot-row').count()).toBe(0)
    expect(await t.publicClient.getBalance({ address: account })).toBe(parseEther('5'))
    await page.context().close()
  })

  it("on an OP Stack chain, a transaction's fee shows its L2 gas and its L1 data fee, the receipt's", async () => {
    const op = await createFlashchain({ host: '127.0.0.1', port: 0, mining: 'auto', opStack: true, workers: 0 })
    try {
      const [from] = (await op.request({ method: 'eth_accounts', params: [] })) as Hex[]
      const hash = (await op.request({ method: 'eth_sendTransaction', params: [{ from: from!, to: t.accounts[1]!.address, value: '0x1' }] })) as Hex
      const receipt = (await op.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as unknown as {
        l1Fee: Hex
        gasUsed: Hex
        effectiveGasPrice: Hex
      }
      const page = await openPage(op.url, '#/blocks')
      await page.getByTestId('block-row').first().waitFor()
      await page.getByTestId('search').fill(hash)
      await page.getByTestId('search').press('Enter')
      const fee = page.getByTestId('tx-fee')
      await fee.waitFor()
      const l2 = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
      // The figures in wei, exact, as each amount carries them.
      const amounts = await fee.getByTestId('amount').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-value')))
      expect(amounts).toEqual([String(l2 + BigInt(receipt.l1Fee)), String(l2), String(BigInt(receipt.l1Fee))])
      expect(BigInt(receipt.l1Fee)).toBeGreaterThan(0n)
      await screenshot(page, 'transaction-l1-fee')
      await page.context().close()
    } finally {
      await op.close()
    }
  })

  describe('who may use it', () => {
    it('on a loopback bind the page is the owner without a token', async () => {
      const page = await openPage(t.url, '#/wallet')
      await page.getByTestId('policy-default').waitFor()
      expect(await page.getByTestId('token-prompt').count()).toBe(0)
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
      await page.context().close()
    })

    it('on a bind that is not a loopback name, with --wallet-token, the page asks for the token once and then works', async () => {
      // ::ffff:7f00:1 is 127.0.0.1 as an IPv4-mapped IPv6 address: the node does not count it as a loopback name,
      // so it behaves as on a LAN address, while the test stays on this machine.
      let remote: Flashchain | undefined
      try {
        remote = await createFlashchain({ host: '::ffff:7f00:1', port: 0, mining: 'manual', walletToken: TOKEN })
        const page = await openPage(remote.url, '#/wallet')
        const prompt = page.getByTestId('token-prompt')
        await prompt.waitFor()
        expect(await page.getByTestId('policy-default').count()).toBe(0)
        await page.getByTestId('token-input').fill('not-the-token')
        await page.getByTestId('token-submit').click()
        await prompt.getByText('did not accept').waitFor()
        await page.getByTestId('token-input').fill(TOKEN)
        await page.getByTestId('token-submit').click()
        await page.getByTestId('policy-default').waitFor()
        expect(await prompt.count()).toBe(0)
        expect(await page.evaluate(() => sessionStorage.getItem('flashchain.walletToken'))).toBe(TOKEN)
        // The session keeps it: another view loads at once, without asking again.
        await page.getByTestId('tab-accounts').click()
        await page.getByTestId('account-row').first().waitFor()
        expect(await prompt.count()).toBe(0)
        await page.context().close()
      } finally {
        await remote?.close()
      }
    })

    it('on a bind that wants the wallet token, which a WebSocket cannot carry, the page asks for the waiting approvals itself', async () => {
      let remote: Flashchain | undefined
      try {
        remote = await createFlashchain({ host: '::ffff:7f00:1', port: 0, mining: 'manual', walletToken: TOKEN, approval: 'manual' })
        let calls: string[] = []
        const page = await openPage(remote.url, '#/wallet', (opening) => {
          calls = recordCalls(opening)
        })
        await page.getByTestId('token-input').fill(TOKEN)
        await page.getByTestId('token-submit').click()
        await page.getByTestId('approval-queue').getByText('nothing waiting').waitFor()

        const owner = { Authorization: `Bearer ${TOKEN}` }
        const [account] = (await sendWith(remote.url, owner, 'eth_accounts')).result as Hex[]
        const signing = sendWith(remote.url, owner, 'personal_sign', ['0x706f6c6c6564', account])
        const message = page.locator('[data-testid=approval][data-key=personal_sign]')
        await message.waitFor()
        expect(await message.getByTestId('sign-message').textContent()).toBe('polled')
        await message.getByTestId('reject').click()
        expect((await signing).error?.code).toBe(4001)
        expect(calls).toContain('ws eth_subscribe flashchain_pendingApprovals')
        expect(calls).toContain('http flashchain_getPendingApprovals')
        await page.context().close()
      } finally {
        await remote?.close()
      }
    })

    it('a page from another origin gets 4100 and none of the waiting approvals', async () => {
      await t.rpc('flashchain_setApprovalPolicy', [{ default: 'approve', methods: { wallet_sendCalls: 'manual' } }])
      const waiting = jsonRpcClient()
        .sendCalls({ calls: [{ to: t.accounts[6]!.address, value: 1n }] })
        .then(() => undefined, codeOf)
      await expect.poll(() => t.rpc<unknown[]>('flashchain_getPendingApprovals').then((list) => list.length)).toBe(1)

      const html = `<!doctype html><title>another site</title><pre id="out">waiting</pre><script>
        fetch(${JSON.stringify(t.url)}, { method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'flashchain_getPendingApprovals', params: [] }) })
          .then((response) => response.text())
          .then((text) => { document.getElementById('out').textContent = text }, (error) => { document.getElementById('out').textContent = 'failed: ' + error })
      </script>`
      const site = createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'text/html' }).end(html))
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
      try {
        const page = await openPage(`http://127.0.0.1:${(site.address() as AddressInfo).port}`)
        await expect.poll(() => page.locator('#out').textContent()).not.toBe('waiting')
        const answer = JSON.parse((await page.locator('#out').textContent())!) as { result?: unknown; error?: { code: number } }
        expect(answer.result).toBeUndefined()
        expect(answer.error?.code).toBe(4100)
        await page.context().close()
      } finally {
        site.close()
        const [approval] = await t.rpc<{ id: string }[]>('flashchain_getPendingApprovals')
        await t.rpc('flashchain_resolveApproval', [approval!.id, 'reject'])
        expect(await waiting).toBe(4001)
      }
    })

    it('a Host that is neither the bind address nor localhost (DNS rebinding) gets HTTP 403, for the page and for JSON-RPC', async () => {
      const port = Number(new URL(t.url).port)
      const send = (method: 'GET' | 'POST', body?: string) =>
        new Promise<number>((resolve, reject) => {
          const headers = { Host: `rebound.example:${port}`, Origin: `http://rebound.example:${port}`, 'Content-Type': 'application/json' }
          const req = request({ host: '127.0.0.1', port, method, path: '/', headers }, (response) => {
            response.resume()
            response.on('end', () => resolve(response.statusCode!))
          })
          req.setTimeout(5000, () => req.destroy(new Error('no answer within 5 s')))
          req.on('error', reject)
          req.end(body)
        })
      expect(await send('GET')).toBe(403)
      expect(await send('POST', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'flashchain_getPendingApprovals', params: [] }))).toBe(403)
    })
  })
})
