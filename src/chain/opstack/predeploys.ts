import { hexToBytes, unpadBytes } from '@ethereumjs/util'

import { accounts, codes } from './predeploys.data.ts'

import type { GenesisAccount } from '../spec/genesis.ts'
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

/**
 * The OP Stack's genesis accounts (predeploys, their implementations and the preinstalls), as block 0's alloc holds
 * them: each distinct code one array, shared by the accounts that run it (2,046 proxies run one).
 */
export function opStackAlloc(): Map<Hex, GenesisAccount> {
  const code = codes.map((hex) => hexToBytes(hex))
  return new Map(
    accounts.map((account) => [
      account.address,
      {
        balance: 0n,
        nonce: BigInt(account.nonce ?? 0),
        code: code[account.code]!,
        storage: new Map((account.storage ?? []).map(([slot, value]) => [slot, unpadBytes(hexToBytes(value))] as const)),
      },
    ]),
  )
}
