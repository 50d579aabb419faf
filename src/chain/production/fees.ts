/** The tip flashchain suggests, and signs with when none is given: 1 gwei, as anvil and Hardhat suggest. */
export const SUGGESTED_TIP = 1_000_000_000n

/** What a transaction in a block of this base fee should offer. */
export type SuggestedFees = {
  /** eth_gasPrice: the base fee and the tip. */
  gasPrice: bigint
  maxPriorityFeePerGas: bigint
  /** Room for the base fee to double before the transaction is included, as wallets offer. */
  maxFeePerGas: bigint
}

export function suggestedFees(baseFeePerGas: bigint): SuggestedFees {
  return { gasPrice: baseFeePerGas + SUGGESTED_TIP, maxPriorityFeePerGas: SUGGESTED_TIP, maxFeePerGas: baseFeePerGas * 2n + SUGGESTED_TIP }
}
