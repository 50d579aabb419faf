/**
 * An EIP-1193 provider that forwards every request to the node over one WebSocket. The browser sends the page's own
 * Origin with the upgrade, so the node applies its origin rules (docs/wallet.md) as it would to any dApp: wallet
 * methods get 4100 until the page is granted accounts, and eth_requestAccounts goes through the approval policy.
 */

/** EIP-1193's error: `code` and `data` as the node answered. */
export class ProviderRpcError extends Error {
  readonly code: number
  readonly data?: unknown
  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'ProviderRpcError'
    this.code = code
    if (data !== undefined) this.data = data
  }
}

/** EIP-1193: the provider is disconnected from all chains. */
const DISCONNECTED = 4900

/** How often eth_accounts is read for `accountsChanged`: the node has no subscription for an origin's grant. */
const ACCOUNTS_POLL_MS = 1000
/** Reconnection waits double from the first to the last. */
const RETRY_FIRST_MS = 250
const RETRY_LAST_MS = 5000

export type RequestArguments = { readonly method: string; readonly params?: readonly unknown[] | object }
type Listener = (payload: unknown) => void
type Pending = { resolve(value: unknown): void; reject(error: ProviderRpcError): void }
type Response = { id: number; result?: unknown; error?: { code: number; message: string; data?: unknown } }

export type Provider = {
  request(args: RequestArguments): Promise<unknown>
  on(event: string, listener: Listener): Provider
  removeListener(event: string, listener: Listener): Provider
}

/** Methods after which the origin's accounts may have changed, so that `accountsChanged` need not wait for the poll. */
const grantMethods = new Set(['eth_requestAccounts', 'wallet_requestPermissions', 'wallet_revokePermissions'])

export function createProvider(socketUrl: string): Provider {
  const listeners = new Map<string, Set<Listener>>()
  const pending = new Map<number, Pending>()
  /** Requests made while the socket is opening, sent once it is open. */
  let queued: string[] = []
  let socket: WebSocket | undefined
  let nextId = 1
  let retryMs = RETRY_FIRST_MS
  let poll: ReturnType<typeof setInterval> | undefined
  /** What the dApp was last told: undefined until the first `connect` (or the first read of the accounts). */
  let chainId: string | undefined
  let accounts: string[] | undefined
  let connected = false

  function emit(event: string, payload: unknown): void {
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(payload)
      } catch (error) {
        // A dApp's listener that throws must not stop the others, nor the provider; the page still sees the error.
        queueMicrotask(() => {
          throw error
        })
      }
    }
  }

  function send(method: string, params: unknown): Promise<unknown> {
    if (socket === undefined) return Promise.reject(new ProviderRpcError(DISCONNECTED, 'flashchain: not connected to the node'))
    const id = nextId++
    const message = JSON.stringify({ jsonrpc: '2.0', id, method, params })
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject })
      if (socket!.readyState === WebSocket.OPEN) socket!.send(message)
      else queued.push(message)
    })
  }

  async function readAccounts(): Promise<void> {
    const next = (await send('eth_accounts', []).catch(() => undefined)) as string[] | undefined
    if (next === undefined) return
    const changed = accounts !== undefined && next.join() !== accounts.join()
    accounts = next
    if (changed) emit('accountsChanged', next)
  }

  async function opened(): Promise<void> {
    const next = (await send('eth_chainId', []).catch(() => undefined)) as string | undefined
    if (next === undefined) return
    const previous = chainId
    chainId = next
    connected = true
    emit('connect', { chainId: next })
    // The same provider may reconnect to a node restarted with another chain.
    if (previous !== undefined && next !== previous) emit('chainChanged', next)
    await readAccounts()
    poll = setInterval(() => listeners.get('accountsChanged')?.size && readAccounts(), ACCOUNTS_POLL_MS)
  }

  function closed(ws: WebSocket): void {
    if (socket !== ws) return
    socket = undefined
    queued = []
    clearInterval(poll)
    const error = new ProviderRpcError(DISCONNECTED, 'flashchain: the connection to the node closed')
    for (const request of pending.values()) request.reject(error)
    pending.clear()
    if (connected) emit('disconnect', error)
    connected = false
    setTimeout(connect, retryMs)
    retryMs = Math.min(retryMs * 2, RETRY_LAST_MS)
  }

  function connect(): void {
    const ws = new WebSocket(socketUrl)
    socket = ws
    ws.onopen = () => {
      retryMs = RETRY_FIRST_MS
      for (const message of queued) ws.send(message)
      queued = []
      void opened()
    }
    ws.onmessage = (event) => {
      const response = JSON.parse(String(event.data)) as Response
      const request = pending.get(response.id)
      if (request === undefined) return
      pending.delete(response.id)
      if (response.error === undefined) request.resolve(response.result)
      else request.reject(new ProviderRpcError(response.error.code, response.error.message, response.error.data))
    }
    ws.onclose = () => closed(ws)
  }

  const provider: Provider = {
    async request(args) {
      if (typeof args?.method !== 'string') throw new ProviderRpcError(-32600, 'request() wants { method: string, params? }')
      const result = await send(args.method, args.params ?? [])
      if (grantMethods.has(args.method)) void readAccounts()
      return result
    },
    on(event, listener) {
      let set = listeners.get(event)
      if (set === undefined) listeners.set(event, (set = new Set()))
      set.add(listener)
      return provider
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener)
      return provider
    },
  }
  connect()
  return provider
}
