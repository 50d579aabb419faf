// Type-checked against the package's declarations, never run: the library's types as a consumer sees them.
import { createFlashchain, EXECUTOR_ADDRESS, RpcError } from 'flashchain'
import { flashchainChain, flashchain as flashchainViemChain } from 'flashchain/chains'
import { flashchainProvider } from 'flashchain/playwright'
import { flashchain } from 'flashchain/prool'

import type { Flashchain, FlashchainOptions, RpcSchema } from 'flashchain'
import type { FlashchainParameters } from 'flashchain/prool'

const options: FlashchainOptions = { port: 0, mining: 'manual', chainId: 8453n, blockTime: 2000, dataDir: undefined }
const node: Flashchain = await createFlashchain(options)
const url: string = node.url
const code: `0x${string}` = await node.request({ method: 'eth_getCode', params: [EXECUTOR_ADDRESS] })
const untyped: unknown = await node.request({ method: 'anything_else', params: [1, 2] })
// @ts-expect-error eth_getCode takes an address, not a number
await node.request({ method: 'eth_getCode', params: [42] })
// @ts-expect-error there is no such mining mode
await createFlashchain({ mining: 'sometimes' })
const error: RpcError = new RpcError('x', { code: -32000 })
const params: RpcSchema['eth_blockNumber']['params'] = []
const parameters: FlashchainParameters = { mining: 'interval', workers: 1 }
const instance = flashchain(parameters)
const name: string = instance.name
const initScript: { content: string } = await flashchainProvider(url, { windowEthereum: true })
const viemChain: { id: number; experimental_preconfirmationTime?: number } = flashchainChain({ url, chainId: 8453 })
const defaultChainId: 31337 | number = flashchainViemChain.id
await node.close()

export { code, defaultChainId, error, initScript, name, params, untyped, url, viemChain }
