import { createTestClient, http, publicActions, walletActions } from 'viem'
import { foundry } from 'viem/chains'
import { inject } from 'vitest'

export const client = createTestClient({ chain: foundry, mode: 'anvil', transport: http(inject('flashchainUrl')) })
  .extend(publicActions)
  .extend(walletActions)

export const dev = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
export const recipient = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
