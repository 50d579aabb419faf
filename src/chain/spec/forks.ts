import type { Common } from '@ethereumjs/common'

/** The most bytes of code a creation may deploy, or none (anvil's --code-size-limit and --disable-code-size-limit). */
export type CodeSizeLimit = number | 'none'

/** What the code size limit is when none is given: the option's, or no limit. */
export function codeSizeLimitOf(options: { codeSizeLimit?: number; disableCodeSizeLimit?: boolean }): CodeSizeLimit | undefined {
  return options.disableCodeSizeLimit === true ? 'none' : options.codeSizeLimit
}

/**
 * Gives a Common (and every copy of it: a copy takes its own properties) another EIP-170 code size limit, and twice
 * it as EIP-3860's initcode limit, as anvil sets revm's `limit_contract_code_size` and derives the initcode limit
 * from it. The EVM, the interpreter's CREATE and CREATE2 and the transaction checks all read these two parameters,
 * so overriding them is the one place the limit needs: ethereumjs' allowUnlimitedContractSize flags would have to
 * reach every VM and transaction made, and cannot set a limit other than none. No limit is the largest a double
 * holds exactly, since ethereumjs compares the parameter as a Number.
 */
export function withCodeSizeLimit(common: Common, limit: CodeSizeLimit): Common {
  const code = limit === 'none' ? BigInt(Number.MAX_SAFE_INTEGER) : BigInt(limit)
  const limits: Record<string, bigint> = { maxCodeSize: code, maxInitCodeSize: limit === 'none' ? code : code * 2n }
  const param = common.param
  common.param = function (this: Common, name: string) {
    return limits[name] ?? param.call(this, name)
  }
  return common
}

/** EIP-7825 (Osaka): no transaction may carry more than 2^24 gas. */
export const EIP7825_TX_GAS_CAP = 2n ** 24n

/** Which rules hold at some block: a Common moved to each block it is asked about. */
export type Forks = {
  at(env: { number: bigint; timestamp: bigint }): Common
  /** EIP-7825's per-transaction gas cap at that block, if active. */
  txGasCap(env: { number: bigint; timestamp: bigint }): bigint | undefined
}

export function createForks(common: Common): Forks {
  const forks = common.copy()
  // Moving a Common walks every fork, and a request asks several times about the same block.
  let movedTo: { number: bigint; timestamp: bigint } | undefined
  const at = (env: { number: bigint; timestamp: bigint }) => {
    if (movedTo?.number !== env.number || movedTo.timestamp !== env.timestamp) {
      forks.setHardforkBy({ blockNumber: env.number, timestamp: env.timestamp })
      movedTo = { number: env.number, timestamp: env.timestamp }
    }
    return forks
  }
  return { at, txGasCap: (env) => (at(env).isActivatedEIP(7825) ? EIP7825_TX_GAS_CAP : undefined) }
}
