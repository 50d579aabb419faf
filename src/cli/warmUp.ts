// The main thread's warm-up (chain/execution/warmUp.ts says why there is one): a scratch chain in memory, with no
// server, runs contracts/WarmUp.sol's transactions through the JSON-RPC methods a client sends, so that the paths a
// first transaction takes (the request's parsing, the wallet's signing, the pool, the estimate, the block's execution
// and sealing, the receipt) are compiled before it arrives. The chain it serves is not touched.
import { setImmediate as nextTurn } from 'node:timers/promises'

import { RELAYED, warmUpRequests } from '../chain/execution/warmUp.ts'
import { createNode } from '../node.ts'

import type { HardforkName } from '../chain/spec/config.ts'
import type { Hex } from '../hex.ts'

/**
 * Runs the warm-up once. Each request waits for the event loop's next turn, so a real request that arrives meanwhile
 * waits for at most one warm-up step. Throws if a step does not do what the contract says.
 */
export async function warmUp(options: { hardfork?: HardforkName } = {}): Promise<void> {
  // One account and no worker: the main thread runs everything, estimates included, as it does while the chain's
  // workers start.
  const node = await createNode({ hardfork: options.hardfork, accounts: 1, workers: 0, mining: 'auto' })
  try {
    const send = async (method: string, params: unknown[]) => {
      await nextTurn()
      return node.request({ method, params } as never) as Promise<unknown>
    }
    const [sender] = node.chain.spec.accounts.map((account) => account.address.toLowerCase() as Hex)
    const requests = warmUpRequests(sender!)
    for (const request of [requests.deploy, requests.approve, requests.relay]) {
      const hash = await send('eth_sendTransaction', [request])
      const receipt = (await send('eth_getTransactionReceipt', [hash])) as { status: Hex } | null
      if (receipt?.status !== '0x1') throw new Error(`warm-up: ${request.data.slice(0, 10)} did not succeed`)
    }
    const held = (await send('eth_call', [requests.balanceOf, 'latest'])) as Hex
    if (BigInt(held) !== RELAYED) throw new Error(`warm-up: the recipient holds ${BigInt(held)}, not ${RELAYED}`)
  } finally {
    await node.close()
  }
}
