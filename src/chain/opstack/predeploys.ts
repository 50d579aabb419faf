import { accounts, codes } from './predeploys.data.ts'

import type { Hex } from '../../hex.ts'

export {
  BASE_FEE_VAULT,
  GAS_PRICE_ORACLE,
  L1_ATTRIBUTES_DEPOSITOR,
  L1_BLOCK,
  L1_FEE_VAULT,
  L2_TO_L1_MESSAGE_PASSER,
  OPERATOR_FEE_VAULT,
  SEQUENCER_FEE_VAULT,
  WETH,
} from './addresses.ts'

/** The OP Stack's genesis accounts (predeploys, their implementations and the preinstalls), as `predeploys` takes them. */
export function opStackPredeploys(): Record<Hex, { balance: bigint; code: Hex; nonce?: bigint; storage?: Record<Hex, Hex> }> {
  return Object.fromEntries(
    accounts.map((account) => [
      account.address,
      {
        balance: 0n,
        code: codes[account.code]!,
        ...(account.nonce === undefined ? {} : { nonce: BigInt(account.nonce) }),
        ...(account.storage === undefined ? {} : { storage: Object.fromEntries(account.storage) }),
      },
    ]),
  )
}
