import { z } from 'zod'

import { InvalidParamsError } from '../errors.ts'
import { anvilMethod, hardhatMethod } from './control.ts'

import type { MethodContext } from '../method.ts'

const loggingParams = z.tuple([z.boolean()])

function setLogging([enabled]: z.output<typeof loggingParams>, { node }: MethodContext) {
  node.setLogging(enabled)
}

/** Turns the node's log lines (blocks, transactions, warnings) off and on. */
export const anvilSetLoggingEnabled = anvilMethod('anvil_setLoggingEnabled', loggingParams, setLogging)
export const hardhatSetLoggingEnabled = hardhatMethod('hardhat_setLoggingEnabled', loggingParams, setLogging)

function refuseFork(): never {
  throw new InvalidParamsError('flashchain does not fork: there is no RPC URL to set')
}

/** The URL a fork reads from; flashchain forks nothing, so it is refused with -32602. */
export const anvilSetRpcUrl = anvilMethod('anvil_setRpcUrl', z.tuple([z.string()]), refuseFork)
export const hardhatSetRpcUrl = hardhatMethod('hardhat_setRpcUrl', z.tuple([z.string()]), refuseFork)
