// The console page as a person reads it: exact values behind rounded ones, token amounts in their token's units,
// transaction status, paging through blocks and an address's transactions, the search box's feedback, and the
// wallet view's lists. Headless chromium against a real node on 127.0.0.1 (interval mining), as console.test.ts.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'

import { createWalletClient, encodeFunctionData, formatUnits, http, parseAbi, parseEther } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { CHROMIUM, launchChromium, skip } from './chromium.ts'
import { openConsole, screenshot as saveScreenshot, screenshots } from './consoleHarness.ts'
import { deploy } from '../e2e/helpers.ts'
import { compileSolidity, DAPP, originClient, startWallet } from '../e2e/walletHelpers.ts'

import type { Browser, Page } from 'playwright-core'
import type { Hex } from 'viem'
import type { TestChain } from '../e2e/helpers.ts'

/** An ERC-20 with 18 decimals whose transfer reverts beyond the sender's balance. */
const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

contract ConsoleToken {
    string public symbol = "TKN";
    uint8 public decimals = 18;
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor() {
        balanceOf[msg.sender] = 1000e18;
        emit Transfer(address(0), msg.sender, 1000e18);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        require(balanceOf[msg.sender] >= amount, "balance");
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
`

const transferAbi = parseAbi(['function transfer(address to, uint256 amount) returns (bool)'])
const balanceOfAbi = parseAbi(['function balanceOf(address owner) view returns (uint256)'])

let browser: Browser
let t: TestChain
let shotDirectory: string
let token: Hex
/** Uncaught errors of the page's script; each test ends with none. */
const pageErrors: Error[] = []

const openPage = (route = '') => openConsole(browser, pageErrors, t.url, route)
const screenshot = (page: Page, name: string) => saveScreenshot(page, shotDirectory, name)

/** Waits for the transaction's block to seal (interval mining answers at pre-confirmation) and returns its number. */
async function sealed(hash: Hex): Promise<bigint> {
  const { blockNumber } = await t.publicClient.waitForTransactionReceipt({ hash })
  const deadline = Date.now() + 20_000
  while ((await t.publicClient.getBlockNumber({ cacheTime: 0 })) < blockNumber) {
    if (Date.now() > deadline) throw new Error(`block ${blockNumber} did not seal within 20 s`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return blockNumber
}

/** The token transfer of `amount` base units from dev account `from`, with its own gas so that a revert is sent. */
const sendTransfer = (from: number, to: Hex, amount: bigint) =>
  t
    .wallet(from)
    .sendTransaction({ to: token, data: encodeFunctionData({ abi: transferAbi, functionName: 'transfer', args: [to, amount] }), gas: 100_000n })

describe.skipIf(skip)(skip ? `the console page, read closely (skipped: ${CHROMIUM} is not installed)` : 'the console page, read closely', () => {
  beforeAll(async () => {
    shotDirectory = screenshots ?? mkdtempSync(`${tmpdir()}/flashchain-console-page-`)
    mkdirSync(shotDirectory, { recursive: true })
    t = await startWallet({ mining: 'interval' })
    browser = await launchChromium()
    const deployed = await deploy(t, compileSolidity(TOKEN_SOURCE, 'ConsoleToken'), [], 0)
    await sealed(deployed.hash)
    token = deployed.address
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await t?.close()
    if (screenshots === undefined && shotDirectory !== undefined) rmSync(shotDirectory, { recursive: true, force: true })
  }, 30_000)

  afterEach(() => {
    expect(pageErrors.map((error) => error.message)).toEqual([])
  })

  it('an approval shows a 1-wei call as <0.000001 ETH, with the exact 1 wei on hover and on a click', async () => {
    const policy = await t.rpc<{ default: string; methods: Record<string, string> }>('flashchain_getApprovalPolicy')
    await t.rpc('flashchain_setApprovalPolicy', [{ ...policy, methods: { wallet_sendCalls: 'manual' } }])
    const page = await openPage('#/wallet')
    const client = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: t.accounts[0]!.address })
    const sending = client.sendCalls({ calls: [{ to: t.accounts[1]!.address, value: 1n }] }).catch(() => undefined)
    const call = page.locator('[data-testid=approval][data-key=wallet_sendCalls]').getByTestId('approval-call')
    await call.waitFor()
    const amount = call.getByTestId('amount').getByRole('button')
    expect(await amount.textContent()).toBe('<0.000001 ETH')
    expect(await amount.getAttribute('title')).toBe('1 wei (0.000000000000000001 ETH)')
    expect(await amount.getAttribute('aria-expanded')).toBe('false')
    await amount.click()
    expect(await call.getByTestId('amount-exact').textContent()).toBe(' = 1 wei, 0.000000000000000001 ETH')
    expect(await amount.getAttribute('aria-expanded')).toBe('true')
    await screenshot(page, 'approval-1-wei')
    await page.locator('[data-testid=approval]').getByTestId('reject').click()
    await sending
    await t.rpc('flashchain_setApprovalPolicy', [policy])
    await page.context().close()
  })

  it("a transaction's value and an account's balance of 1 wei are <0.000001 ETH, never 0 ETH", async () => {
    const recipient = '0x00000000000000000000000000000000000c0051'
    const hash = await t.wallet(0).sendTransaction({ to: recipient, value: 1n })
    await sealed(hash)
    const page = await openPage(`#/tx/${hash}`)
    const value = page.getByTestId('tx-value')
    await value.getByRole('button').waitFor()
    expect(await value.getByRole('button').textContent()).toBe('<0.000001 ETH')
    expect(await value.getByRole('button').getAttribute('title')).toBe('1 wei (0.000000000000000001 ETH)')

    await page.goto(`${t.url}/#/address/${recipient}`)
    const balance = page.getByTestId('address-detail').getByTestId('amount').first()
    await balance.waitFor()
    expect(await balance.textContent()).toBe('<0.000001 ETH')
    expect(await balance.getByRole('button').getAttribute('title')).toBe('1 wei (0.000000000000000001 ETH)')
    await page.context().close()
  })

  it("token amounts in a call and its log read with the token's decimals and symbol, the raw units on hover; the base fee in gwei", async () => {
    const hash = await sendTransfer(0, t.accounts[2]!.address, 12_340_000_000_000_000_000n)
    const block = await sealed(hash)
    const page = await openPage(`#/tx/${hash}`)
    const detail = page.getByTestId('tx-detail')
    const call = detail.locator('dd .decoded').first()
    await call.getByText('12.34 TKN').waitFor()
    expect(await call.textContent()).toMatch(/^transfer\(to: 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}, amount: 12\.34 TKN\)$/)
    expect(await call.getByRole('button', { name: '12.34 TKN' }).getAttribute('title')).toBe('12340000000000000000 base units (12.34 TKN)')
    const log = detail.getByTestId('log-row').first()
    await log.getByText('12.34 TKN').waitFor()
    expect(await log.textContent()).toMatch(/Transfer\(from: 0x.{9}, to: 0x.{9}, value: 12\.34 TKN\)/)
    await screenshot(page, 'token-transfer')

    await page.goto(`${t.url}/#/block/${block}`)
    const fee = page.getByTestId('base-fee').getByRole('button')
    await fee.waitFor()
    expect(await fee.textContent()).toMatch(/^(≈|<)?[\d.]+ gwei$/)
    expect(await fee.getAttribute('title')).toMatch(/^\d+ wei \([\d.]+ gwei\)$/)
    await page.context().close()
  })

  it("a block's rows say which transaction reverted, and the block links to the one before and after", async () => {
    // Account 3 holds no tokens: its transfer reverts, and is mined all the same with its own gas.
    const reverted = await sendTransfer(3, t.accounts[4]!.address, 1n)
    const block = await sealed(reverted)
    expect((await t.publicClient.getTransactionReceipt({ hash: reverted })).status).toBe('reverted')
    const page = await openPage(`#/block/${block}`)
    const row = page.locator(`[data-testid=block-tx][data-hash="${reverted}"]`)
    await row.getByTestId('status').waitFor()
    expect(await row.getByTestId('status').textContent()).toBe('reverted')
    // Its call reads the token's units here too: one base unit of 18 decimals.
    await row.getByRole('button', { name: '<0.000001 TKN' }).waitFor()
    await screenshot(page, 'block')

    await page.getByTestId('block-previous').click()
    await page.getByRole('heading', { name: `Block #${block - 1n}` }).waitFor()
    expect(new URL(page.url()).hash).toBe(`#/block/${block - 1n}`)
    await page.getByTestId('block-next').click()
    await page.getByRole('heading', { name: `Block #${block}` }).waitFor()
    await row.getByTestId('status').waitFor()
    // The transfer that succeeded says so too, on its own block's page.
    const good = await sendTransfer(0, t.accounts[4]!.address, 1n)
    await page.goto(`${t.url}/#/block/${await sealed(good)}`)
    expect(await page.locator(`[data-testid=block-tx][data-hash="${good}"]`).getByTestId('status').textContent()).toBe('success')
    await page.context().close()
  })

  it('the blocks list pages back through older blocks, and hides the empty ones on request', async () => {
    const hash = await sendTransfer(0, t.accounts[5]!.address, 5n)
    const withTransfer = await sealed(hash)
    await t.rpc('anvil_mine', ['0x28'])
    const page = await openPage('#/blocks')
    const rows = page.getByTestId('block-row')
    await expect.poll(() => rows.count()).toBe(15)
    // The list follows the head, which interval mining moves: its first row and its `older` link are read at once.
    const live = await page.locator('body').evaluate((body) => ({
      top: body.querySelector('[data-testid=block-row]')!.getAttribute('data-number')!,
      older: body.querySelector('[data-testid=blocks-older]')!.getAttribute('href'),
    }))
    const top = BigInt(live.top)
    expect(top).toBeGreaterThan(withTransfer + 40n - 1n)
    expect(live.older).toBe(`#/blocks/${top - 15n}`)
    // A page that starts at a block stays there whatever the head does: paging back from it is exact.
    await page.goto(`${t.url}/#/blocks/${top}`)
    await page.locator(`[data-testid=block-row][data-number="${top}"]`).waitFor()
    await page.getByTestId('blocks-older').click()
    await page.locator(`[data-testid=block-row][data-number="${top - 15n}"]`).waitFor()
    expect(new URL(page.url()).hash).toBe(`#/blocks/${top - 15n}`)
    expect(await rows.first().getAttribute('data-number')).toBe(`${top - 15n}`)
    expect(await rows.last().getAttribute('data-number')).toBe(`${top - 29n}`)

    await page.getByTestId('blocks-newest').click()
    await page.getByLabel('hide empty blocks').check()
    await page.locator(`[data-testid=block-row][data-number="${withTransfer}"]`).waitFor()
    const counts = await rows.evaluateAll((cells) => cells.map((row) => row.children[3]!.textContent))
    expect(counts.length).toBeGreaterThan(0)
    expect(counts.filter((count) => count === '0')).toEqual([])
    expect(await page.getByTestId('blocks-range').textContent()).toMatch(/^blocks #\d+–#\d+: \d+ with transactions, \d+ empty hidden$/)
    await screenshot(page, 'blocks')
    await page.context().close()
  })

  it('an address lists its transactions from blocks it looks through newest first, a page at a time, and says how far back it looked', async () => {
    const from = t.accounts[6]!
    const first = await t.wallet(6).sendTransaction({ to: t.accounts[7]!.address, value: parseEther('0.25') })
    const second = await sendTransfer(6, t.accounts[7]!.address, 1n)
    const block = await sealed(second)
    await sealed(first)
    // Further back than the first page of 100 blocks.
    await t.rpc('anvil_mine', ['0x78'])
    const page = await openPage(`#/address/${from.address.toLowerCase()}`)
    expect(await page.getByTestId('address').textContent()).toBe(from.address)
    const scanned = page.getByTestId('address-scanned')
    await scanned.getByText('No transactions').waitFor()
    expect(await scanned.textContent()).toMatch(/^No transactions from or to this address in blocks #(\d+)–#(\d+) \(the latest 100 blocks\)\.$/)
    expect(await page.locator('nav a[aria-current]').count()).toBe(0)

    await page.getByTestId('address-older').click()
    await page.locator(`[data-testid=address-tx][data-hash="${second}"]`).waitFor()
    const hashes = await page.getByTestId('address-tx').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-hash')))
    expect(hashes.slice(0, 2).sort()).toEqual([first, second].sort())
    expect(await page.locator(`[data-testid=address-tx][data-hash="${second}"]`).getByTestId('status').textContent()).toBe('reverted')
    const [, oldest] = (await scanned.textContent())!.match(/in blocks #(\d+)–/)!
    expect(BigInt(oldest!)).toBeLessThanOrEqual(block)
    await screenshot(page, 'address')
    await page.context().close()
  })

  it('a search it cannot follow says what it takes (aria-invalid, aria-describedby); one it follows empties the box', async () => {
    const page = await openPage('#/blocks')
    const search = page.getByRole('searchbox', { name: 'Search by transaction hash, block number or address' })
    await search.fill('not a hash')
    await search.press('Enter')
    const message = page.getByTestId('search-message')
    await message.waitFor()
    expect(await message.textContent()).toBe(
      '“not a hash” is none of these. Enter a transaction hash (0x and 64 hex digits), a block number (or latest, pending) or an address (0x and 40 hex digits).',
    )
    expect(await search.getAttribute('aria-invalid')).toBe('true')
    expect(await search.getAttribute('aria-describedby')).toBe(await message.getAttribute('id'))
    await screenshot(page, 'search')

    await search.fill('1')
    await search.press('Enter')
    await page.getByRole('heading', { name: 'Block #1' }).waitFor()
    expect(await search.inputValue()).toBe('')
    expect(await search.getAttribute('aria-invalid')).toBeNull()
    expect(await message.count()).toBe(0)
    await page.context().close()
  })

  it('the flashblocks of a block the page joined halfway say why their index is "?"', async () => {
    const page = await openPage()
    // The page cannot have seen the first block it meets from its start.
    const unseen = page.locator('[data-testid=flashblock]:not([data-index])').first()
    await unseen.waitFor()
    expect(await unseen.textContent()).toMatch(/^\?/)
    expect(await unseen.getAttribute('title')).toMatch(
      /^\? = not seen: the page opened after this block's first flashblocks, so it cannot number them; received /,
    )
    const number = await unseen.getAttribute('data-number')
    const legend = page.locator(`[data-testid=timeline-block][data-number="${number}"]`).getByTestId('joined-halfway')
    expect(await legend.textContent()).toBe("? = not seen: the page opened after this block's first flashblocks, so it cannot number them.")
    await page.context().close()
  })

  it("the wallet view: a grant's accounts one per item in account order, watched tokens under headers with their symbol, the policy only where set", async () => {
    const dapp = originClient(t, DAPP)
    const granted = await dapp.rpc<Hex[]>('eth_requestAccounts')
    expect(granted.length).toBe(t.accounts.length)
    const client = createWalletClient({ chain: t.chain, transport: http(t.url, { retryCount: 0 }), account: t.accounts[0]!.address })
    expect(await client.watchAsset({ type: 'ERC20', options: { address: token, symbol: 'TKN', decimals: 18 } })).toBe(true)

    const page = await openPage('#/wallet')
    const grant = page.locator(`[data-testid=grant-row][data-origin="${DAPP}"]`)
    await expect
      .poll(() => grant.getByTestId('grant-account').allTextContents())
      .toEqual(t.accounts.map(({ address }) => `${address.slice(0, 6)}…${address.slice(-4)}`))
    // One item per line: each below the one before.
    const tops = await grant.getByTestId('grant-account').evaluateAll((items) => items.map((item) => item.getBoundingClientRect().top))
    expect(tops.every((top, i) => i === 0 || top > tops[i - 1]!)).toBe(true)

    const tokens = page.getByTestId('tokens')
    const row = tokens.locator(`[data-testid=token-row][data-token="${token}"]`)
    await row.waitFor()
    expect(await tokens.locator('th').allTextContents()).toEqual(['account', 'token', 'contract', 'balance (pending)'])
    const balance = await t.publicClient.readContract({
      address: token,
      abi: balanceOfAbi,
      functionName: 'balanceOf',
      args: [t.accounts[0]!.address],
    })
    const shown = row.getByTestId('token-balance').getByRole('button')
    expect(await shown.textContent()).toMatch(/^≈?[\d.]+ TKN$/)
    expect(await shown.getAttribute('title')).toBe(`${balance} base units (${formatUnits(balance, 18)} TKN)`)

    const policy = page.getByTestId('policy')
    await policy.getByTestId('policy-default').waitFor()
    expect(await policy.getByTestId('policy-row').count()).toBe(0)
    await policy.getByTestId('policy-add-key').selectOption('personal_sign')
    await policy.getByTestId('policy-add-decision').selectOption('reject')
    await policy.getByTestId('policy-add').click()
    await policy.locator('[data-testid=policy-row][data-key=personal_sign]').waitFor()
    expect(await t.rpc<{ methods: Record<string, string> }>('flashchain_getApprovalPolicy').then((p) => p.methods)).toEqual({
      personal_sign: 'reject',
    })
    await screenshot(page, 'wallet-lists')
    await policy.getByRole('button', { name: 'Remove the rule for personal_sign' }).click()
    await policy.getByTestId('policy-row').waitFor({ state: 'detached' })
    await dapp.rpc('wallet_revokePermissions', [{ eth_accounts: {} }]).catch(() => undefined)
    await page.context().close()
  })

  it('dev actions: the address field holds a whole address, and Restore sits beside its snapshot', async () => {
    const page = await openPage('#/dev')
    const field = page.getByLabel('Account')
    await field.fill(t.accounts[8]!.address)
    expect(await field.evaluate((input) => input.scrollWidth <= input.clientWidth)).toBe(true)
    await page.getByTestId('snapshot').click()
    const snapshot = page.getByTestId('snapshot-row')
    await snapshot.waitFor()
    const label = await snapshot.locator('span').boundingBox()
    const restore = await snapshot.getByRole('button', { name: /^Restore snapshot \d+$/ }).boundingBox()
    expect(restore!.x - (label!.x + label!.width)).toBeLessThan(20)
    await snapshot.getByRole('button').click()
    await snapshot.waitFor({ state: 'detached' })
    await page.context().close()
  })
})
