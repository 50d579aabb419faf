import { signTransaction } from '../crypto/signTransaction.ts'
import { chainConfig } from '../spec/forkConfig.ts'

import type { Common } from '@ethereumjs/common'
import type { SealedBlocks } from '../blocks/sealedBlocks.ts'
import type { PendingSnapshot } from '../blocks/types.ts'
import type { DevAccount } from '../spec/accounts.ts'
import type { Forks } from '../spec/forks.ts'
import type { Hex } from '../../hex.ts'
import type { ChainConfig, UnsignedTransaction } from '../types.ts'

export type SpecParts = {
  chainId: bigint
  revertCode: number
  accounts: readonly DevAccount[]
  flashblockInterval: number
  opStack: boolean
  common: Common
  forks: Forks
  /** The contract whose logs are EIP-6110 deposits. */
  depositContractAddress: Hex
  blocks: SealedBlocks
  pending: () => PendingSnapshot
}

/** The chain's rules and settings: its id, its accounts, and the forks in force. */
export type SpecService = {
  readonly chainId: bigint
  readonly revertCode: number
  readonly accounts: readonly DevAccount[]
  /** ms between flashblocks while blocks are produced on a clock. */
  readonly flashblockInterval: number
  /** An OP Stack chain (--op-stack): predeploys, L1 attributes deposits, the L1 data fee, deposits. */
  readonly opStack: boolean
  /** The hardfork of the pending block, by its ethereumjs name. */
  hardfork(): string
  /** Whether an EIP is active in the pending block. */
  isActive(eip: number): boolean
  /** EIP-7825's per-transaction gas cap in the pending block, if active. */
  txGasCap(): bigint | undefined
  /** EIP-7910: the fork in force at the head, and the next and last ones scheduled. */
  config(): ChainConfig
  /**
   * `transaction` signed with `privateKey`, encoded as the pending block's rules have it: what the wallet sends for
   * its accounts, signed by libsecp256k1 (crypto/secp256k1.ts).
   */
  signTransaction(transaction: UnsignedTransaction, privateKey: Hex): Hex
}

export function createSpecService(parts: SpecParts): SpecService {
  const { common, forks, blocks } = parts
  const pendingEnv = () => parts.pending().env
  return {
    chainId: parts.chainId,
    revertCode: parts.revertCode,
    accounts: parts.accounts,
    flashblockInterval: parts.flashblockInterval,
    opStack: parts.opStack,
    hardfork: () => forks.at(pendingEnv()).hardfork(),
    isActive: (eip) => forks.at(pendingEnv()).isActivatedEIP(eip),
    txGasCap: () => forks.txGasCap(pendingEnv()),
    signTransaction: (transaction, privateKey) => signTransaction(forks.at(pendingEnv()), transaction, privateKey),
    config() {
      const genesis = blocks.byNumber(blocks.first)!.block
      return chainConfig(common, {
        genesisHash: genesis.hash(),
        genesisTimestamp: genesis.header.timestamp,
        headTimestamp: blocks.head().block.header.timestamp,
        depositContractAddress: parts.depositContractAddress,
      })
    },
  }
}
