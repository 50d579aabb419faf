import type { Hex } from '../../hex.ts'

/** The L1 attributes of the latest L1 block the chain knows, which the fee contracts read. */
export const L1_BLOCK: Hex = '0x4200000000000000000000000000000000000015'
/** The L1 and operator fees of a transaction, as contracts and wallets ask for them. */
export const GAS_PRICE_ORACLE: Hex = '0x420000000000000000000000000000000000000f'
/** Receives the priority fees. */
export const SEQUENCER_FEE_VAULT: Hex = '0x4200000000000000000000000000000000000011'
/** Receives the base fees, which L2 does not burn. */
export const BASE_FEE_VAULT: Hex = '0x4200000000000000000000000000000000000019'
/** Receives the L1 data fees. */
export const L1_FEE_VAULT: Hex = '0x420000000000000000000000000000000000001a'
/** Receives the operator fees (Isthmus). */
export const OPERATOR_FEE_VAULT: Hex = '0x420000000000000000000000000000000000001b'
/** Withdrawals to L1 start here. */
export const L2_TO_L1_MESSAGE_PASSER: Hex = '0x4200000000000000000000000000000000000016'
export const WETH: Hex = '0x4200000000000000000000000000000000000006'
/** The sender of each block's first transaction, the L1-attributes deposit, and the only caller L1Block accepts. */
export const L1_ATTRIBUTES_DEPOSITOR: Hex = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001'
