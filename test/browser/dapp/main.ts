/**
 * A dApp as a team would write one, on wagmi and viem: it finds its wallet through EIP-6963 and exposes its flows as
 * `window.dapp` for the browser test to run; its batches go through React's useSendCalls (hooks.tsx). Values cross
 * into the test as JSON, so amounts travel as decimal strings. The node it reads from is the page's `?node=` parameter.
 */
import {
  connect,
  createConfig,
  getCapabilities,
  getConnection,
  getConnectors,
  http,
  readContract,
  signMessage,
  signTypedData,
  waitForCallsStatus,
} from '@wagmi/core'
import { createWalletClient, custom, defineChain, encodeFunctionData, parseAbi } from 'viem'
import { waitForCallsStatus as viemWaitForCallsStatus } from 'viem/actions'
import { createSiweMessage } from 'viem/siwe'

import { mountHooks } from './hooks.tsx'

import type { EIP1193Provider, Hex } from 'viem'

const nodeUrl = new URLSearchParams(location.search).get('node')
if (nodeUrl === null) throw new Error('the dApp wants ?node=<the node URL>')

const chain = defineChain({
  id: 31337,
  name: 'flashchain',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [nodeUrl] } },
})
const config = createConfig({
  chains: [chain],
  transports: { [chain.id]: http(nodeUrl) },
  multiInjectedProviderDiscovery: true,
  pollingInterval: 100,
})

const hooks = mountHooks(config)

const tokenAbi = parseAbi(['function nonces(address owner) view returns (uint256)', 'function transfer(address to, uint256 amount) returns (bool)'])

export type Call = { to: Hex; value?: string; transfer?: { token: Hex; amount: string } }
export type BatchResult = {
  id: string
  status: string | undefined
  statusCode: number
  atomic: boolean
  receipts: { transactionHash: Hex; status: string }[]
}
export type Failure = { code: number | undefined; message: string }

const toViemCalls = (calls: Call[]) =>
  calls.map((call) =>
    call.transfer === undefined
      ? { to: call.to, value: BigInt(call.value ?? 0) }
      : {
          to: call.transfer.token,
          data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [call.to, BigInt(call.transfer.amount)] }),
        },
  )

const outcome = (status: Awaited<ReturnType<typeof waitForCallsStatus>>, id: string): BatchResult => ({
  id,
  status: status.status,
  statusCode: status.statusCode,
  atomic: status.atomic,
  receipts: (status.receipts ?? []).map((receipt) => ({ transactionHash: receipt.transactionHash, status: receipt.status })),
})

/** The connector wagmi made from flashchain's EIP-6963 announcement (its id is the announced rdns). */
function flashchainConnector() {
  const connector = getConnectors(config).find((candidate) => candidate.id === 'dev.flashchain')
  if (connector === undefined) throw new Error(`no EIP-6963 wallet dev.flashchain among ${getConnectors(config).map((c) => c.id)}`)
  return connector
}

const provider = async () => (await flashchainConnector().getProvider()) as EIP1193Provider

function account(): Hex {
  const { address } = getConnection(config)
  if (address === undefined) throw new Error('not connected')
  return address
}

/** accountsChanged as the provider emitted it, in order, for the test to read. */
const accountsChanged: string[][] = []
void provider().then((p) => p.on('accountsChanged', (accounts) => accountsChanged.push(accounts)))

const dapp = {
  announced: () => getConnectors(config).map(({ id, name, icon }) => ({ id, name, icon })),

  async connect(): Promise<{ accounts: readonly Hex[]; chainId: number }> {
    return connect(config, { connector: flashchainConnector() })
  },

  /** Sign-In with Ethereum (EIP-4361): the message and the signature the backend would verify. */
  async signIn(nonce: string): Promise<{ address: Hex; message: string; signature: Hex }> {
    const address = account()
    const message = createSiweMessage({
      address,
      chainId: chain.id,
      domain: location.host,
      uri: location.origin,
      version: '1',
      nonce,
      statement: 'Sign in to the flashchain test dApp.',
    })
    return { address, message, signature: await signMessage(config, { message }) }
  },

  /** An EIP-2612 permit for `spender`, signed by the connected account, for a relayer to submit. */
  async signPermit(token: Hex, spender: Hex, value: string, deadline: string): Promise<{ owner: Hex; signature: Hex }> {
    const owner = account()
    const nonce = await readContract(config, { address: token, abi: tokenAbi, functionName: 'nonces', args: [owner] })
    const signature = await signTypedData(config, {
      domain: { name: 'Permit Token', version: '1', chainId: chain.id, verifyingContract: token },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner, spender, value: BigInt(value), nonce, deadline: BigInt(deadline) },
    })
    return { owner, signature }
  },

  /** React's useSendCalls, as a React dApp sends a batch, then waitForCallsStatus. */
  async sendBatch(calls: Call[], options: { forceAtomic?: boolean; fallback?: boolean } = {}): Promise<BatchResult> {
    const send = await hooks
    const { id } = await send({ calls: toViemCalls(calls), forceAtomic: options.forceAtomic, experimental_fallback: options.fallback })
    return outcome(await waitForCallsStatus(config, { id, timeout: 20_000 }), id)
  },

  /** viem's own sendCalls with experimental_fallback, on a wallet client over the EIP-6963 provider. */
  async viemSendBatch(calls: Call[]): Promise<BatchResult> {
    const client = createWalletClient({ account: account(), chain, transport: custom(await provider()), pollingInterval: 100 })
    const { id } = await client.sendCalls({ calls: toViemCalls(calls), experimental_fallback: true })
    return outcome(await viemWaitForCallsStatus(client, { id, timeout: 20_000 }), id)
  },

  capabilities: async () => JSON.parse(JSON.stringify(await getCapabilities(config, { chainId: chain.id }))) as Record<string, unknown>,

  /** One request straight to the provider: its result, or the code and message it rejected with. */
  async request(method: string, params: unknown[] = []): Promise<{ result: unknown } | { error: Failure }> {
    try {
      return { result: await (await provider()).request({ method, params } as never) }
    } catch (error) {
      return { error: { code: (error as { code?: number }).code, message: (error as Error).message } }
    }
  },

  accountsChanged: () => accountsChanged,
}

export type Dapp = typeof dapp
Object.assign(window, { dapp })
