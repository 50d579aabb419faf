import type { ChainListener } from './events.ts'
import type { Receipt, Transaction } from './types.ts'

/**
 * The console's view of the chain, as anvil's and Hardhat's show theirs: a line per flashblock that pre-confirmed
 * transactions, and one per transaction under it (hash, sender, recipient or created contract, gas, status). The
 * producer logs the seals itself. A listener of the chain's events like any other, so it never slows the writer.
 */
export function activityLog(log: (line: string) => void): ChainListener {
  return (event) => {
    if (event.type !== 'flashblock' || event.first === event.block.transactions.length) return
    const { block, first } = event
    const count = block.transactions.length - first
    log(`flashblock ${block.env.number}.${block.flashblockIndex}: ${count} transaction${count === 1 ? '' : 's'} pre-confirmed`)
    for (let i = first; i < block.transactions.length; i++) log(`  ${transactionLine(block.transactions[i]!, block.receipts[i]!)}`)
  }
}

export function transactionLine(tx: Transaction, receipt: Receipt): string {
  const target = tx.to === null ? `created ${receipt.contractAddress}` : `to ${tx.to}`
  const failed = receipt.failure === undefined ? ' reverted' : ` reverted: ${receipt.failure}`
  const status = receipt.status === undefined ? '' : receipt.status === 1 ? ' ok' : failed
  return `${tx.hash} from ${tx.from} ${target} gas ${receipt.gasUsed}${status}`
}
