import { consoleMessage } from './consoleLog.ts'
import { formatCall, formatEther, shortHex } from './text.ts'

import type { ChainListener } from '../events.ts'
import type { Receipt, Transaction } from '../types.ts'
import type { ActivityDecoder } from './decoder.ts'

/**
 * The width a transaction's line keeps to, as a terminal shows it whole. The transaction hash is written in full: it
 * is what the reader copies into other tools (a receipt, a trace, the console page), and everything else on the
 * line is one lookup away from it. So the addresses and the call's arguments are shortened to fit, and arguments
 * that still do not fit are left out; a revert's reason is never cut, as it is what the line is read for.
 */
export const LINE_WIDTH = 120

/**
 * The console's view of the chain, as anvil's and Hardhat's show theirs: a line per flashblock that pre-confirmed
 * transactions, and under it one line per transaction (its hash, the call it made as its ABI names it, the gas
 * it used, and why it failed), followed by what it printed with console.log. The producer logs the seals itself. A
 * listener of the chain's events like any other, so it never slows the writer.
 */
export function activityLog(log: (line: string) => void, decoder: ActivityDecoder): ChainListener {
  return (event) => {
    if (event.type !== 'flashblock' || event.first === event.block.transactions.length) return
    const { block, first } = event
    const count = block.transactions.length - first
    log(`flashblock ${block.env.number}.${block.flashblockIndex}: ${count} transaction${count === 1 ? '' : 's'} pre-confirmed`)
    for (let i = first; i < block.transactions.length; i++) {
      for (const line of transactionLines(block.transactions[i]!, block.receipts[i]!, decoder)) log(line)
    }
  }
}

/** A transaction's line, indented under its flashblock, and its console.log messages indented under it. */
export function transactionLines(tx: Transaction, receipt: Receipt, decoder: ActivityDecoder): string[] {
  const why = receipt.failure === undefined ? undefined : decoder.failure(receipt.failure)
  const outcome = receipt.status !== 0 ? '' : why === undefined ? ' reverted' : ` reverted: ${why}`
  const gas = ` gas ${receipt.gasUsed}`
  const value = tx.value === 0n ? '' : ` with ${formatEther(tx.value)}`
  const start = `  ${tx.hash} `
  let what: string
  if (tx.to === null) {
    // A failed deployment's receipt names the address it would have had, as geth's does; nothing is there.
    const created = receipt.status === 0 || receipt.contractAddress === null ? undefined : receipt.contractAddress
    what = `${created === undefined ? 'deploy' : `deployed ${shortHex(created)}`}${value}`
  } else if (tx.input === '0x') {
    what = `${formatEther(tx.value)} → ${shortHex(tx.to)}`
  } else {
    const call = decoder.call(tx.input)
    const target = shortHex(tx.to)
    if (call === undefined) {
      what = `${target} ${tx.input.length >= 10 ? `selector ${tx.input.slice(0, 10)}` : `data ${tx.input}`}${value}`
    } else {
      const width = LINE_WIDTH - start.length - target.length - 1 - value.length - gas.length - outcome.length
      what = `${target}.${formatCall(call.name, call.args, width)}${value}`
    }
  }
  const lines = [`${start}${what}${gas}${outcome}`]
  for (const data of receipt.consoleCalls ?? []) {
    const message = consoleMessage(data)
    // As anvil and Hardhat print them: the message alone, here indented under the transaction that printed it.
    if (message !== undefined) for (const line of message.split('\n')) lines.push(`    ${line}`)
  }
  return lines
}
