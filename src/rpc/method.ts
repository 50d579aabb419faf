import type { z } from 'zod'

import type { Chain } from '../chain/chain.ts'
import type { Wallet } from '../wallet/wallet.ts'

/** What the transport knows about one HTTP request; wallet authorization decides on it. */
export type RequestContext = {
  /** The HTTP `Origin` header, when a browser sent the request. */
  origin: string | undefined
  /** The HTTP `Authorization` header. */
  authorization: string | undefined
}

export type MethodContext = {
  chain: Chain
  wallet: Wallet
  /** Who sent the request; the wallet decides what it may do. */
  request: RequestContext
}

/**
 * One JSON-RPC method: the schema that turns wire params into typed values, and the handler that receives only
 * valid input. A schema failure becomes -32602 naming the bad argument.
 */
export type Method<TSchema extends z.ZodType = z.ZodType> = {
  params: TSchema
  handler: (params: z.output<TSchema>, context: MethodContext) => unknown
}

export function defineMethod<TSchema extends z.ZodType>(method: Method<TSchema>): Method<TSchema> {
  return method
}
