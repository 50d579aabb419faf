import { InvalidInputError } from '../chain/errors.ts'
import { NoSigningKeyError } from './errors.ts'
import { hexToBytes } from '../hex.ts'

import type { CallRequest } from '../chain/execution/executor.ts'
import type { Hex } from '../hex.ts'
import type { Caller, Signer, WalletCore } from './core.ts'

/**
 * eth_sendTransaction: signed by one of the wallet's accounts (or sent as an impersonated one), with nonce, gas and
 * fees filled from the pending state where the request leaves them out. As geth and anvil: a transaction that would
 * revert is refused with the revert, not sent.
 */
export async function sendTransaction(core: WalletCore, caller: Caller, request: CallRequest & { from: Hex }): Promise<Hex> {
  core.authorize(caller, request.from)
  await core.approve('eth_sendTransaction', caller, 'eth_sendTransaction', [request])
  const account = await core.signer(request.from)
  return core.serially(async () => {
    const serialized = await fillAndSign(core, account, request)
    return core.chain.pool.sendRawTransaction(hexToBytes(serialized), account.impersonated ? request.from : undefined)
  })
}

/**
 * eth_signTransaction: the transaction eth_sendTransaction would send, signed and returned instead (as anvil and
 * Hardhat answer it: the raw transaction). A signed transaction is valid wherever its chain id is, so a browser
 * origin the developer has not said they trust waits for a click even under the approve policy.
 */
export async function signTransaction(core: WalletCore, caller: Caller, request: CallRequest & { from: Hex }): Promise<Hex> {
  core.authorize(caller, request.from)
  await core.approve('eth_signTransaction', caller, 'eth_signTransaction', [request], { prompt: core.untrusted(caller) })
  const account = await core.signer(request.from)
  if (account.impersonated) throw new NoSigningKeyError(`${request.from} is impersonated: there is no key to sign a transaction with`)
  return core.serially(() => fillAndSign(core, account, request))
}

/** Fills nonce, gas and fees from the pending state where the request leaves them out, and signs. */
async function fillAndSign(core: WalletCore, account: Signer, request: CallRequest & { from: Hex }): Promise<Hex> {
  const { chain } = core
  const nonce = request.nonce ?? chain.pool.nextNonce(request.from)
  // The signer counts nonces in doubles; no account gets near 2^53 transactions.
  if (nonce > BigInt(Number.MAX_SAFE_INTEGER))
    throw new InvalidInputError(`nonce ${nonce} is beyond what this wallet signs`, { input: 'transaction' })
  const gas = request.gas ?? (await chain.calls.estimateGas({ ...request, nonce }, 'pending'))
  const suggested = chain.pool.suggestedFees()
  const tip = request.maxPriorityFeePerGas ?? suggested.maxPriorityFeePerGas
  const base = {
    chainId: Number(chain.spec.chainId),
    nonce: Number(nonce),
    to: request.to ?? undefined,
    value: request.value ?? 0n,
    data: request.data,
    gas,
  }
  if (request.gasPrice !== undefined) {
    return request.accessList === undefined
      ? account.signTransaction({ ...base, type: 'legacy', gasPrice: request.gasPrice })
      : account.signTransaction({ ...base, type: 'eip2930', gasPrice: request.gasPrice, accessList: request.accessList })
  }
  return account.signTransaction({
    ...base,
    type: 'eip1559',
    maxPriorityFeePerGas: tip,
    maxFeePerGas: request.maxFeePerGas ?? suggested.maxFeePerGas - suggested.maxPriorityFeePerGas + tip,
    accessList: request.accessList,
  })
}
