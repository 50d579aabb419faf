import type { FeeHistory } from '../types.ts'
import type { SealedBlocks } from './sealedBlocks.ts'
import type { SealedBlock } from './types.ts'

/** geth's cap on the blocks one eth_feeHistory may cover. */
export const MAX_FEE_HISTORY_BLOCKS = 1024n

/** The tip at each percentile of the block's gas, as geth computes it: where the cumulative gas reaches it. */
function rewards(sealed: SealedBlock, percentiles: number[]): bigint[] {
  const baseFee = sealed.block.header.baseFeePerGas ?? 0n
  const tips = sealed.receipts
    // An OP Stack deposit pays no gas price: its tip is 0, as op-geth counts it.
    .map((receipt) => ({ tip: receipt.depositNonce === undefined ? receipt.effectiveGasPrice - baseFee : 0n, gas: receipt.gasUsed }))
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
  if (tips.length === 0) return percentiles.map(() => 0n)
  const gasUsed = sealed.block.header.gasUsed
  return percentiles.map((percentile) => {
    const threshold = (gasUsed * BigInt(Math.round(percentile * 100))) / 10_000n
    let cumulative = 0n
    for (const entry of tips) {
      cumulative += entry.gas
      if (cumulative >= threshold) return entry.tip
    }
    return tips.at(-1)!.tip
  })
}

/** `count` blocks ending at `newest`, and the fees of the block after them, which EIP-1559 and EIP-4844 fix in advance. */
export function feeHistory(blocks: SealedBlocks, count: bigint, newest: bigint, percentiles: number[] | undefined): FeeHistory {
  const span = count > MAX_FEE_HISTORY_BLOCKS ? MAX_FEE_HISTORY_BLOCKS : count
  const first = newest + 1n - span > 0n ? newest + 1n - span : 0n
  if (span === 0n) return { oldestBlock: 0n, baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] }

  const history: Required<FeeHistory> = {
    oldestBlock: first,
    baseFeePerGas: [],
    gasUsedRatio: [],
    baseFeePerBlobGas: [],
    blobGasUsedRatio: [],
    reward: [],
  }
  for (let number = first; number <= newest; number++) {
    const sealed = blocks.byNumber(number)!
    const { header } = sealed.block
    history.baseFeePerGas.push(header.baseFeePerGas ?? 0n)
    history.gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit))
    history.baseFeePerBlobGas.push(header.excessBlobGas === undefined ? 0n : header.getBlobGasPrice())
    const maxBlobGas = header.excessBlobGas === undefined ? 0n : sealed.block.common.getBlobGasSchedule().maxBlobGasPerBlock
    history.blobGasUsedRatio.push(maxBlobGas === 0n ? 0 : Number(header.blobGasUsed ?? 0n) / Number(maxBlobGas))
    if (percentiles !== undefined) history.reward.push(rewards(sealed, percentiles))
  }
  const after = blocks.byNumber(newest + 1n)?.block.header
  const last = blocks.byNumber(newest)!.block
  history.baseFeePerGas.push(after?.baseFeePerGas ?? (last.header.baseFeePerGas === undefined ? 0n : last.header.calcNextBaseFee()))
  history.baseFeePerBlobGas.push(
    after !== undefined
      ? after.excessBlobGas === undefined
        ? 0n
        : after.getBlobGasPrice()
      : last.header.excessBlobGas === undefined
        ? 0n
        : last.header.calcNextBlobGasPrice(last.common),
  )
  if (percentiles === undefined) {
    const { reward: _reward, ...withoutRewards } = history
    return withoutRewards
  }
  return history
}
