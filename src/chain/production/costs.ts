/**
 * What a step of block production takes per transaction, ms, as a running average of what it took: a bounded
 * inclusion (includePooled) leaves that much room per transaction before its deadline. It is wall time, so it counts
 * the requests the step lets through meanwhile, which delay the flashblock as much as the step's own work.
 */
export type CostEstimate = {
  readonly perTransaction: number
  /** The step took `ms` for `transactions` transactions; none teaches nothing. */
  observe(ms: number, transactions: number): void
}

/** The weight of the newest observation. */
const WEIGHT = 0.3

export function createCostEstimate(): CostEstimate {
  let perTransaction = 0
  return {
    get perTransaction() {
      return perTransaction
    },
    observe(ms, transactions) {
      if (transactions > 0) perTransaction = (1 - WEIGHT) * perTransaction + (WEIGHT * ms) / transactions
    },
  }
}
