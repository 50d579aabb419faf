import { z } from 'zod'

import { InvalidParamsError } from '../../errors.ts'
import { defineMethod } from '../method.ts'
import { toQuantity } from '../format.ts'
import { block, quantity } from '../schemas.ts'

import type { SealedBlock } from '../../chain/blocks/types.ts'

/** geth's cap on blockCount. */
const MAX_BLOCK_COUNT = 1024n

const blockCount = z.union([quantity, z.number().int().nonnegative().transform(BigInt)])

function rewards(sealed: SealedBlock, percentiles: number[]): string[] {
  const baseFee = sealed.block.header.baseFeePerGas ?? 0n
  const tips = sealed.block.transactions
    .map((_tx, i) => ({ tip: sealed.receipts[i]!.effectiveGasPrice - baseFee, gas: sealed.receipts[i]!.gasUsed }))
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
  if (tips.length === 0) return percentiles.map(() => '0x0')
  const gasUsed = sealed.block.header.gasUsed
  // As geth: the tip of the transaction at which the cumulative gas reaches the percentile of the block's gas.
  return percentiles.map((percentile) => {
    const threshold = (gasUsed * BigInt(Math.round(percentile * 100))) / 10_000n
    let cumulative = 0n
    for (const entry of tips) {
      cumulative += entry.gas
      if (cumulative >= threshold) return toQuantity(entry.tip)
    }
    return toQuantity(tips.at(-1)!.tip)
  })
}

export const feeHistory = defineMethod({
  params: z.tuple([blockCount, block, z.array(z.number().min(0).max(100)).optional()]),
  handler: ([count, newest, percentiles], { chain }) => {
    if (percentiles !== undefined && percentiles.some((value, i) => i > 0 && value < percentiles[i - 1]!)) {
      throw new InvalidParamsError(`invalid reward percentile: ${percentiles.join(',')}, must be ascending`)
    }
    const resolved = chain.resolve(newest)
    const last = resolved.kind === 'pending' ? chain.head().number : resolved.block.number
    const blocks = count > MAX_BLOCK_COUNT ? MAX_BLOCK_COUNT : count
    const first = last + 1n - blocks > 0n ? last + 1n - blocks : 0n
    if (blocks === 0n) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] }

    const baseFeePerGas: string[] = []
    const gasUsedRatio: number[] = []
    const baseFeePerBlobGas: string[] = []
    const blobGasUsedRatio: number[] = []
    const reward: string[][] = []
    for (let number = first; number <= last; number++) {
      const sealed = chain.blockByNumber(number)!
      const header = sealed.block.header
      baseFeePerGas.push(toQuantity(header.baseFeePerGas ?? 0n))
      gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit))
      baseFeePerBlobGas.push(toQuantity(header.excessBlobGas === undefined ? 0n : header.getBlobGasPrice()))
      const maxBlobGas = header.excessBlobGas === undefined ? 0n : sealed.block.common.getBlobGasSchedule().maxBlobGasPerBlock
      blobGasUsedRatio.push(maxBlobGas === 0n ? 0 : Number(header.blobGasUsed ?? 0n) / Number(maxBlobGas))
      if (percentiles !== undefined) reward.push(rewards(sealed, percentiles))
    }
    // The base fee of the block after the range is known in advance (EIP-1559), so it is reported too.
    const after = chain.blockByNumber(last + 1n)
    const lastHeader = chain.blockByNumber(last)!.block.header
    baseFeePerGas.push(
      toQuantity(after?.block.header.baseFeePerGas ?? (lastHeader.baseFeePerGas === undefined ? 0n : lastHeader.calcNextBaseFee())),
    )
    baseFeePerBlobGas.push(
      toQuantity(
        after !== undefined
          ? after.block.header.excessBlobGas === undefined ? 0n : after.block.header.getBlobGasPrice()
          : lastHeader.excessBlobGas === undefined ? 0n : lastHeader.calcNextBlobGasPrice(chain.blockByNumber(last)!.block.common),
      ),
    )
    return {
      oldestBlock: toQuantity(first),
      baseFeePerGas,
      gasUsedRatio,
      baseFeePerBlobGas,
      blobGasUsedRatio,
      ...(percentiles === undefined ? {} : { reward }),
    }
  },
})
