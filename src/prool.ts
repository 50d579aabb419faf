/**
 * flashchain as a prool instance (`import { flashchain } from 'flashchain/prool'`): `Server.create({ instance:
 * flashchain() })` gives a pool of flashchains, one per key (a test worker's pool id), as prool's anvil instance gives
 * anvils. Each runs in the process that holds the pool, through createFlashchain(): no child process to spawn, and
 * its port is the one the pool picked.
 */
import { Instance } from 'prool'

import { createFlashchain } from './index.ts'

import type { Flashchain, FlashchainOptions } from './index.ts'

/**
 * createFlashchain()'s options. `mining` defaults to `auto`, as anvil and Hardhat seal each transaction by default, and
 * `workers` to 0: the pool's flashchains share one process, and an execution worker is a thread and a heap for each
 * (docs/testing.md gives what each costs).
 */
export type FlashchainParameters = Omit<FlashchainOptions, 'log' | 'debug'>

export const flashchain = Instance.define((parameters?: FlashchainParameters) => {
  const { host = '127.0.0.1', port = 8545, ...options } = parameters ?? {}
  let node: Flashchain | undefined
  return {
    _internal: {
      options,
      /** The running flashchain, for in-process requests (`request`, `chain`, `wallet`). */
      get flashchain() {
        return node
      },
    },
    host,
    name: 'flashchain',
    port,
    async start({ port: listenPort = port }, { emitter, setEndpoint }) {
      node = await createFlashchain({
        mining: 'auto',
        workers: 0,
        ...options,
        host,
        port: listenPort,
        log: (line) => emitter.emit('message', line),
      })
      // Port 0 asks the system for one: the endpoint is the port the server got.
      setEndpoint?.({ port: Number(new URL(node.url).port) })
      emitter.emit('listening')
    },
    async stop({ emitter }) {
      const running = node
      node = undefined
      await running?.close()
      emitter.emit('exit', 0, null)
    },
  }
})
