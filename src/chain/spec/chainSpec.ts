import { createLazyKZG } from '../crypto/kzg.ts'
import { keccak256 } from '../crypto/keccak.ts'
import { nativeEcrecover, nativeEcsign } from '../crypto/secp256k1.ts'
import { mergeParamsOnce } from '../ethereumjs/paramsCache.ts'
import { withCodeSizeLimit } from './forks.ts'
import { parseGethGenesis } from './genesis.ts'

import type { CodeSizeLimit } from './forks.ts'
import type { GenesisSpec } from './genesis.ts'

/**
 * The chain a genesis describes, with the engine's own crypto: keccak through WebAssembly, sender recovery through
 * libsecp256k1 where it loads, KZG loaded on first use. The main thread and every execution worker build their
 * Common here, so they run the same rules.
 */
export function createChainSpec(genesisJSON: unknown, options: { codeSizeLimit?: CodeSizeLimit } = {}): GenesisSpec {
  const spec = parseGethGenesis(genesisJSON, {
    customCrypto: { kzg: createLazyKZG(), ecrecover: nativeEcrecover(), ecsign: nativeEcsign(), keccak256 },
  })
  const common = mergeParamsOnce(spec.common)
  return { ...spec, common: options.codeSizeLimit === undefined ? common : withCodeSizeLimit(common, options.codeSizeLimit) }
}
