/**
 * What a replica sends its sequencer rather than answer (docs/scaling-out.md): every method that changes the chain
 * or acts for the wallet. Those are the methods that are not `public` (test control, the wallet's, signing), and the
 * public ones that change what the sequencer alone holds: sending a signed transaction, and its pool's contents.
 */
import type { Forwarding, RpcResponse } from '../rpc/dispatch.ts'
import type { Method, RequestContext } from '../rpc/method.ts'

const FORWARDED_PUBLIC = new Set([
  'eth_sendRawTransaction',
  'eth_sendRawTransactionSync',
  'txpool_status',
  'txpool_inspect',
  'txpool_content',
  'txpool_contentFrom',
  'base_transactionStatus',
  'wallet_addEthereumChain',
  'wallet_switchEthereumChain',
])

/** Longer than the longest a write may wait there (eth_sendRawTransactionSync's 60 s). */
const FORWARD_TIMEOUT_MS = 90_000

/** The answer when the sequencer cannot be reached: -32603, as any failure that is not the caller's. */
const UNREACHABLE = -32603

function forwards(method: Pick<Method, 'name' | 'access'>): boolean {
  return method.access !== 'public' || FORWARDED_PUBLIC.has(method.name)
}

/**
 * Sends each forwarded request to `rpc` as it came, with the caller's Origin and Authorization, and answers with
 * the sequencer's response. `sent` hears of each raw transaction the sequencer accepted, for read-your-writes.
 */
export function createForwarding(rpc: string, sent: (raw: string) => void): Forwarding {
  return {
    forwards,
    async send(request, caller: RequestContext): Promise<RpcResponse | undefined> {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (caller.authorization !== undefined) headers.authorization = caller.authorization
      if (caller.origin !== undefined) headers.origin = caller.origin
      const id = (request.id ?? null) as RpcResponse['id']
      let response: Response
      try {
        response = await fetch(rpc, { method: 'POST', headers, body: JSON.stringify(request), signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) })
      } catch (error) {
        const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)
        return { jsonrpc: '2.0', id, error: { code: UNREACHABLE, message: `the sequencer did not answer: ${cause}` } }
      }
      if (response.status === 204) return undefined
      let body: RpcResponse
      try {
        body = (await response.json()) as RpcResponse
      } catch {
        return { jsonrpc: '2.0', id, error: { code: UNREACHABLE, message: `the sequencer answered HTTP ${response.status} without JSON` } }
      }
      const params = request.params
      if ('result' in body && body.result !== null && Array.isArray(params) && typeof params[0] === 'string') {
        if (request.method === 'eth_sendRawTransaction' || request.method === 'eth_sendRawTransactionSync') sent(params[0])
      }
      return body
    },
  }
}
