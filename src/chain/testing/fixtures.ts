// Fixtures shared by the unit tests: hand-built state to run the EVM on without a chain around it, and a genesis for
// tests that start a chain.
import { KECCAK256_NULL, bytesToHex } from '@ethereumjs/util'

import { devGenesis } from '../spec/devGenesis.ts'
import { keccak256 } from '../crypto/keccak.ts'
import { systemContracts } from '../spec/systemContracts.ts'

import type { BlockEnv } from '../types.ts'
import type { DevAccount } from '../spec/accounts.ts'
import type { HardforkName } from '../spec/config.ts'
import type { StateDiff, StateReader } from '../state/types.ts'
import type { Hex } from '../../hex.ts'

const zeroWord = `0x${'00'.repeat(32)}` as Hex

/** A block environment at number 1; `overrides` replace single fields. */
export function testBlockEnv(overrides: Partial<BlockEnv> = {}): BlockEnv {
  return {
    number: 1n,
    timestamp: 1_700_000_000n,
    gasLimit: 30_000_000n,
    baseFeePerGas: 1n,
    coinbase: `0x${'00'.repeat(20)}`,
    prevRandao: zeroWord,
    excessBlobGas: 0n,
    parentHash: zeroWord,
    parentBeaconBlockRoot: zeroWord,
    ...overrides,
  }
}

/** State with no accounts at all: the base under a test's overlay. */
export const emptyState: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }

/** Puts an account into `diff`, with `code` stored under its hash when there is any. */
export function putAccount(
  diff: StateDiff,
  address: Hex,
  { code = new Uint8Array(0), balance = 0n, nonce = 1n }: { code?: Uint8Array; balance?: bigint; nonce?: bigint } = {},
) {
  const codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code)
  if (code.length > 0) diff.code.set(bytesToHex(codeHash) as Hex, code)
  diff.accounts.set(address, { nonce, balance, codeHash, storageRoot: KECCAK256_NULL })
}

/** A dev chain (id 31337, 30M gas; Osaka unless told) with the system contracts and 10,000 ETH for each of `accounts`. */
export function fundedGenesis(accounts: readonly DevAccount[], hardfork: HardforkName = 'osaka') {
  return devGenesis({
    chainId: 31337n,
    hardfork,
    gasLimit: 30_000_000n,
    timestamp: 1_700_000_000,
    alloc: {
      ...Object.fromEntries(Object.values(systemContracts).map((contract) => [contract.address, { balance: 0n, code: contract.code }])),
      ...Object.fromEntries(accounts.map((account) => [account.address, { balance: 10n ** 22n }])),
    },
  })
}
