// The work a fresh thread does once so that its first real transaction runs warm. V8 compiles a function the first
// time it runs and compiles it better once it has run a while: in a fresh process, a fork's first approve-and-swap
// took 70–80 ms where the same pair of transactions took 20 a moment later, almost all of the difference spent
// compiling the EVM, the signer and the block builder. Each thread that runs transactions (the main thread, through
// a scratch node: src/cli/warmUp.ts; each execution worker, here) runs a token's life once beforehand:
// contracts/WarmUp.sol deployed, an approval, a contract pulling tokens through it and passing them on, a balance read.
import * as AbiFunction from 'ox/AbiFunction'
import * as AbiParameters from 'ox/AbiParameters'
import { KECCAK256_NULL, KECCAK256_RLP, bytesToHex, createAddressFromString, createContractAddress } from '@ethereumjs/util'

import artifact from '../../../contracts/WarmUp.json' with { type: 'json' }

import { createOverlay } from '../state/overlay.ts'
import { createStateDiff } from '../state/types.ts'

import type { CallRunner } from './callRunner.ts'
import type { CallRequest } from './executor.ts'
import type { StateReader } from '../state/types.ts'
import type { BlockEnv } from '../types.ts'
import type { Hex } from '../../hex.ts'

const SUPPLY = 10n ** 24n
const AMOUNT = 10n ** 18n
/** Receives the relayed tokens: an address no warm-up touches otherwise. */
const RECIPIENT = '0x000000000000000000000000000000000000beef' as Hex

const abi = artifact.abi
const approve = AbiFunction.fromAbi(abi, 'approve')
const relay = AbiFunction.fromAbi(abi, 'relay')
const balanceOf = AbiFunction.fromAbi(abi, 'balanceOf')

/** The warm-up's transactions from `sender`, an account that has sent none yet, in the order they run. */
export function warmUpRequests(sender: Hex) {
  const token = createContractAddress(createAddressFromString(sender), 0n).toString() as Hex
  return {
    /** The constructor takes the supply, all of it the sender's. */
    deploy: { from: sender, data: `${artifact.bytecode}${AbiParameters.encode([{ type: 'uint256' }], [SUPPLY]).slice(2)}` as Hex },
    /** The token approves itself as the spender: `relay` pulls through it. */
    approve: { from: sender, to: token, data: AbiFunction.encodeData(approve, [token, AMOUNT]) },
    relay: { from: sender, to: token, data: AbiFunction.encodeData(relay, [token, RECIPIENT, AMOUNT]) },
    balanceOf: { from: sender, to: token, data: AbiFunction.encodeData(balanceOf, [RECIPIENT]) },
  } satisfies Record<string, CallRequest>
}

/** What `relay` leaves the recipient holding, which a warm-up checks so that it knows its runs did what it meant. */
export const RELAYED = AMOUNT

const SENDER = '0x00000000000000000000000000000000000c0ffe' as Hex
const GAS = 1_000_000n

const ENV: BlockEnv = {
  number: 1n,
  timestamp: 1n,
  gasLimit: 30_000_000n,
  baseFeePerGas: 0n,
  coinbase: '0x0000000000000000000000000000000000000000',
  prevRandao: `0x${'00'.repeat(32)}`,
  excessBlobGas: 0n,
  parentHash: `0x${'00'.repeat(32)}`,
  parentBeaconBlockRoot: `0x${'00'.repeat(32)}`,
}

const NOTHING: StateReader = { account: () => undefined, storage: () => new Uint8Array(0), code: () => undefined }

/**
 * Runs the warm-up on `runner` in a state of its own, which nothing else reads: the relay first as an estimate (the
 * search eth_sendTransaction runs), then each transaction as an execution, and the balance as a call. Throws if a run
 * does not do what the contract says, so that a broken warm-up fails rather than warming error paths.
 */
export async function warmUpRunner(runner: CallRunner): Promise<void> {
  const seed = createStateDiff()
  seed.accounts.set(SENDER, { nonce: 0n, balance: 10n ** 18n, codeHash: KECCAK256_NULL, storageRoot: KECCAK256_RLP })
  let state = createOverlay(seed, NOTHING)
  const requests = warmUpRequests(SENDER)
  for (const request of [requests.deploy, requests.approve, requests.relay]) {
    if (request === requests.relay) await runner.estimate(request, { env: ENV, state })
    const { outcome, writes } = await runner.executor.execute(request, GAS, { env: ENV, state })
    if (outcome.kind !== 'success') throw new Error(`warm-up: ${request.data.slice(0, 10)} ended in ${outcome.kind}`)
    state = createOverlay(writes, state)
  }
  const held = AbiFunction.decodeResult(balanceOf, bytesToHex(await runner.call(requests.balanceOf, { env: ENV, state })))
  if (held !== RELAYED) throw new Error(`warm-up: the recipient holds ${held}, not ${RELAYED}`)
}
