import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

import * as Value from 'ox/Value'

import { DEFAULT_MNEMONIC, defaults, hardforks, miningModes } from './chain/spec/config.ts'
import { parseGenesisJsonText } from './chain/spec/genesis.ts'
import { bigint, fail, integer, list } from './cli/arguments.ts'
import { followMain } from './cli/follow.ts'
import { banner, nearestOption, startFailure } from './cli/messages.ts'
import { createFlashchain } from './index.ts'
import { packageVersion } from './rpc/web3/clientVersion.ts'
import { startMemoryTrim } from './runtime/memoryTrim.ts'
import { warmUp } from './cli/warmUp.ts'

import { approvalDecisions } from './wallet/approvals.ts'

import type { ForkOptions, HardforkName, MiningMode } from './chain/spec/config.ts'
import type { Hex } from './hex.ts'
import type { ApprovalDecision } from './wallet/approvals.ts'
import type { Flashchain, FlashchainOptions } from './index.ts'

const usage = `Usage: flashchain [options]
       flashchain follow <ws-url> [options]   a replica of another node (flashchain follow --help)

  --host <address>              bind address (default 127.0.0.1)
  --port <number>               port; 0 picks a free one (default 8545)
  --chain-id <number>           chain id (default 31337)
  --hardfork <name>             ${hardforks.join(' | ')} (default osaka)
  --block-time <ms>             ms between sealed blocks (default 2000)
  --flashblock-interval <ms>    ms between flashblocks (default 200)
  --mining <mode>               ${miningModes.join(' | ')} (default interval)
  --default-block-tag <tag>     latest | pending: what eth_call, eth_estimateGas, eth_getBalance and the other state
                                reads answer from when the request names no block (default latest)
  --data-dir <path>             where the chain persists (default ./.flashchain)
  --ephemeral                   keep everything in memory
  --fresh                       wipe the data dir first
  --accounts <count>            dev accounts (default 10)
  --mnemonic <words>            dev accounts' mnemonic (default "${DEFAULT_MNEMONIC}")
  --balance <ether>             ETH per dev account (default 10000)
  --genesis <file>              start from a geth-style genesis.json
  --import <file>               import back-to-back RLP blocks at start
  --revert-code <code>          error code of "execution reverted" (default -32000; 3 gives geth's)
  --block-gas-limit <gas>       gas limit of dev blocks (default 30000000)
  --rpc-gas-cap <gas>           most gas eth_call and eth_estimateGas may use, and a whole eth_simulateV1 (default
                                50000000)
  --rpc-evm-timeout <ms>        how long eth_call and eth_estimateGas may run before geth's "execution aborted" (default
                                5000; 0 for none); eth_createAccessList and eth_simulateV1 too
  --trace-max-bytes <bytes>     most bytes a debug_trace* answer may take before it fails (default 33554432)
  --code-size-limit <bytes>     most bytes of code a contract creation may deploy (default 24576, EIP-170); initcode
                                may be twice it (EIP-3860), as in anvil
  --disable-code-size-limit     no limit on deployed code or initcode size, as anvil's
  --op-stack                    an OP Stack chain, as Base is: its predeploys, an L1 attributes deposit opening each
                                block, the L1 data fee on every other transaction and in its receipt, and deposits
                                from the owner (flashchain_sendDeposit)
  --workers <count>             threads answering eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1 and
                                debug_trace* beside the main one (default: cores - 1, at most 3; 0 runs them all on
                                the main thread, where only a trace's own timeout stops a long run)
  --max-body-bytes <bytes>      largest request body (default 5242880)
  --max-batch-length <count>    longest batch (default 1000)
  --max-connections <count>     most connections open at once, HTTP and WebSocket together (default 1000)
  --max-output-bytes <bytes>    bytes a WebSocket connection may have waiting to be sent when its next message is
                                sent; beyond, it is closed with 1008 (default 8388608)
  --max-total-output-bytes <bytes>
                                bytes waiting to be sent across all connections; beyond, the one furthest behind is
                                dropped first (default 67108864)
  --max-subscriptions <count>   subscriptions per WebSocket connection (default 100; -32005 beyond)
  --max-total-subscriptions <count>
                                subscriptions across all connections (default 1000; -32005 beyond)
  --allowed-hosts <names>       comma-separated Host names to answer besides localhost, 127.0.0.1, [::1] and the
                                bind address; * for any (others get HTTP 403, against DNS rebinding)
  --allowed-origins <origins>   comma-separated browser origins the wallet trusts besides pages on this machine
                                (localhost, 127.0.0.1, [::1], *.localhost); * for any. Other origins' account
                                requests wait for an approval, even under --approval approve
  --private-key <key>           a wallet account by its private key (repeatable; replaces the mnemonic's)
  --approval <policy>           wallet approval policy: approve | reject | manual (default approve)
  --approval-timeout <ms>       how long a manual approval waits before it is rejected (default 300000)
  --wallet-token <token>        bearer token required for wallet and admin methods on a non-loopback bind
  --max-batch-size <count>      most calls in one wallet_sendCalls batch (default 100)
  --enable-eth-sign             answer eth_sign, which signs any 32-byte hash (off by default, as in MetaMask)
  --max-filters <count>         most polled filters (eth_newFilter and its kin) installed at once (default 10000)
  --max-filters-per-origin <count>
                                most polled filters one browser origin installs at once; callers without an Origin
                                header count as one origin (default 1000)
  --max-mine-blocks <count>     most blocks one anvil_mine or hardhat_mine seals (default 10000); each is sealed for
                                real, at about a thousand a second
  --fork-url <url>              fork this upstream's chain: its state at the fork block, read on demand, under local
                                blocks (docs/fork.md)
  --fork-block-number <number>  the fork block (default: the upstream's latest; a data dir resumes its own)
  --fork-chain-id <number>      the chain id the fork answers with (default: the upstream's)
  --fork-retries <count>        times a failed upstream request is tried again (default 3)
  --fork-retry-backoff <ms>     ms before the first retry, doubling each time (default 250)
  --fork-cache <dir>            where what was fetched is kept, for the next run (default: the data dir)
  --no-fork-cache               keep no fork cache
  --abi <path>                  build output of your contracts (Foundry's out/, Hardhat's artifacts/, or ABI JSON
                                files; repeatable): the console page decodes their logs and calls
  --quiet                       print only the listening line and errors (no live console of blocks,
                                flashblocks and transactions)
  --debug                       also log per-request detail, such as the EVM runs of each eth_estimateGas
  -V, --version                 print the version
  -h, --help                    show this help
`

const parseOptions = {
  host: { type: 'string' },
  port: { type: 'string' },
  'chain-id': { type: 'string' },
  hardfork: { type: 'string' },
  'block-time': { type: 'string' },
  'flashblock-interval': { type: 'string' },
  mining: { type: 'string' },
  'default-block-tag': { type: 'string' },
  'data-dir': { type: 'string' },
  ephemeral: { type: 'boolean' },
  fresh: { type: 'boolean' },
  accounts: { type: 'string' },
  mnemonic: { type: 'string' },
  balance: { type: 'string' },
  genesis: { type: 'string' },
  import: { type: 'string' },
  'revert-code': { type: 'string' },
  'block-gas-limit': { type: 'string' },
  'rpc-gas-cap': { type: 'string' },
  'rpc-evm-timeout': { type: 'string' },
  'trace-max-bytes': { type: 'string' },
  'code-size-limit': { type: 'string' },
  'disable-code-size-limit': { type: 'boolean' },
  'op-stack': { type: 'boolean' },
  workers: { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-batch-length': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-output-bytes': { type: 'string' },
  'max-total-output-bytes': { type: 'string' },
  'max-subscriptions': { type: 'string' },
  'max-total-subscriptions': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'allowed-origins': { type: 'string' },
  approval: { type: 'string' },
  'approval-timeout': { type: 'string' },
  'wallet-token': { type: 'string' },
  'max-batch-size': { type: 'string' },
  'enable-eth-sign': { type: 'boolean' },
  'max-filters': { type: 'string' },
  'max-mine-blocks': { type: 'string' },
  'max-filters-per-origin': { type: 'string' },
  'fork-url': { type: 'string' },
  'fork-block-number': { type: 'string' },
  'fork-chain-id': { type: 'string' },
  'fork-retries': { type: 'string' },
  'fork-retry-backoff': { type: 'string' },
  'fork-cache': { type: 'string' },
  'no-fork-cache': { type: 'boolean' },
  abi: { type: 'string', multiple: true },
  'private-key': { type: 'string', multiple: true },
  quiet: { type: 'boolean' },
  debug: { type: 'boolean' },
  version: { type: 'boolean', short: 'V' },
  help: { type: 'boolean', short: 'h' },
} as const

/** Every option the command line takes, by its long name (`--host` …): the help text names each. */
export const optionNames: readonly string[] = Object.keys(parseOptions).map((name) => `--${name}`)

const readArguments = (argv: string[]) => parseArgs({ args: argv, strict: true, options: parseOptions }).values

export function parseCommandLine(argv: string[]): Omit<FlashchainOptions, 'debug'> & { quiet: boolean; debug: boolean } {
  let parsed: ReturnType<typeof readArguments>
  try {
    parsed = readArguments(argv)
  } catch (error) {
    const unknown = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(String(error))?.[1] : undefined
    if (unknown === undefined) fail(error instanceof Error ? error.message : String(error))
    const nearest = nearestOption(unknown.replace(/=.*$/, ''), optionNames)
    fail(`unknown option ${unknown}${nearest === undefined ? '' : `; did you mean ${nearest}?`}`)
  }
  if (parsed.help === true) {
    process.stdout.write(usage)
    process.exit(0)
  }
  if (parsed.version === true) {
    process.stdout.write(`flashchain ${packageVersion}\n`)
    process.exit(0)
  }
  const hardfork = parsed.hardfork
  if (hardfork !== undefined && !hardforks.includes(hardfork as HardforkName)) {
    fail(`--hardfork must be one of ${hardforks.join(', ')}, got "${hardfork}"`)
  }
  const mining = parsed.mining
  if (mining !== undefined && !miningModes.includes(mining as MiningMode)) fail(`--mining must be one of ${miningModes.join(', ')}, got "${mining}"`)
  const defaultBlockTag = parsed['default-block-tag']
  if (defaultBlockTag !== undefined && defaultBlockTag !== 'latest' && defaultBlockTag !== 'pending') {
    fail(`--default-block-tag must be latest or pending, got "${defaultBlockTag}"`)
  }
  const revertCode = integer('revert-code', parsed['revert-code'], { min: -65536 })
  const approval = parsed.approval
  if (approval !== undefined && !approvalDecisions.includes(approval as ApprovalDecision)) {
    fail(`--approval must be one of ${approvalDecisions.join(', ')}, got "${approval}"`)
  }
  const privateKeys = parsed['private-key']?.map((key) => {
    const normalized = key.startsWith('0x') ? key : `0x${key}`
    if (!/^0x[0-9a-fA-F]{64}$/.test(normalized)) fail('--private-key must be 32 bytes of hex')
    return normalized.toLowerCase() as Hex
  })
  let genesis: unknown
  if (parsed.genesis !== undefined) {
    try {
      genesis = parseGenesisJsonText(readFileSync(parsed.genesis, 'utf8'))
    } catch (error) {
      fail(`cannot read --genesis ${parsed.genesis}: ${error instanceof Error ? error.message : error}`)
    }
  }
  let importBlocks: Uint8Array | undefined
  if (parsed.import !== undefined) {
    try {
      importBlocks = readFileSync(parsed.import)
    } catch (error) {
      fail(`cannot read --import ${parsed.import}: ${error instanceof Error ? error.message : error}`)
    }
  }
  let balance: bigint | undefined
  if (parsed.balance !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(parsed.balance)) fail(`--balance must be an amount of ETH, got "${parsed.balance}"`)
    balance = Value.fromEther(parsed.balance)
  }
  const codeSizeLimit = integer('code-size-limit', parsed['code-size-limit'], { min: 1 })
  const disableCodeSizeLimit = parsed['disable-code-size-limit'] === true
  if (disableCodeSizeLimit && codeSizeLimit !== undefined) fail('--code-size-limit cannot be used with --disable-code-size-limit')
  const blockTime = integer('block-time', parsed['block-time'], { min: 1 })
  const flashblockInterval = integer('flashblock-interval', parsed['flashblock-interval'], { min: 1 })
  const interval = flashblockInterval ?? defaults.flashblockInterval
  const block = blockTime ?? defaults.blockTime
  if (interval > block) {
    const given = (value: number | undefined) => (value === undefined ? ', the default' : '')
    fail(`--flashblock-interval (${interval} ms${given(flashblockInterval)}) must not exceed --block-time (${block} ms${given(blockTime)})`)
  }
  return {
    fork: forkOptions(parsed),
    host: parsed.host,
    port: integer('port', parsed.port),
    chainId: bigint('chain-id', parsed['chain-id']),
    hardfork: hardfork as HardforkName | undefined,
    blockTime,
    flashblockInterval,
    mining: mining as MiningMode | undefined,
    defaultBlockTag,
    dataDir: parsed.ephemeral === true ? undefined : (parsed['data-dir'] ?? './.flashchain'),
    fresh: parsed.fresh,
    accounts: integer('accounts', parsed.accounts),
    mnemonic: parsed.mnemonic,
    balance,
    genesis,
    importBlocks,
    revertCode,
    blockGasLimit: bigint('block-gas-limit', parsed['block-gas-limit']),
    rpcGasCap: bigint('rpc-gas-cap', parsed['rpc-gas-cap']),
    rpcEvmTimeout: integer('rpc-evm-timeout', parsed['rpc-evm-timeout'], { min: 0 }),
    traceMaxBytes: integer('trace-max-bytes', parsed['trace-max-bytes'], { min: 1 }),
    codeSizeLimit,
    disableCodeSizeLimit,
    opStack: parsed['op-stack'],
    workers: integer('workers', parsed.workers),
    maxBodyBytes: integer('max-body-bytes', parsed['max-body-bytes'], { min: 1 }),
    maxBatchLength: integer('max-batch-length', parsed['max-batch-length'], { min: 1 }),
    maxConnections: integer('max-connections', parsed['max-connections'], { min: 1 }),
    maxOutputBytes: integer('max-output-bytes', parsed['max-output-bytes'], { min: 1 }),
    maxTotalOutputBytes: integer('max-total-output-bytes', parsed['max-total-output-bytes'], { min: 1 }),
    maxSubscriptions: integer('max-subscriptions', parsed['max-subscriptions'], { min: 1 }),
    maxTotalSubscriptions: integer('max-total-subscriptions', parsed['max-total-subscriptions'], { min: 1 }),
    allowedHosts: list(parsed['allowed-hosts']),
    allowedOrigins: list(parsed['allowed-origins']),
    approval: approval as ApprovalDecision | undefined,
    approvalTimeout: integer('approval-timeout', parsed['approval-timeout'], { min: 1 }),
    walletToken: parsed['wallet-token'],
    maxBatchSize: integer('max-batch-size', parsed['max-batch-size'], { min: 1 }),
    enableEthSign: parsed['enable-eth-sign'] === true,
    maxFilters: integer('max-filters', parsed['max-filters'], { min: 1 }),
    maxMineBlocks: integer('max-mine-blocks', parsed['max-mine-blocks'], { min: 1 }),
    maxFiltersPerOrigin: integer('max-filters-per-origin', parsed['max-filters-per-origin'], { min: 1 }),
    abi: parsed.abi,
    privateKeys,
    quiet: parsed.quiet === true,
    debug: parsed.debug === true,
  }
}

/** The --fork-* options, when --fork-url is given; they mean nothing without it. */
function forkOptions(parsed: ReturnType<typeof readArguments>): ForkOptions | undefined {
  const url = parsed['fork-url']
  if (url === undefined) {
    const stray = Object.keys(parsed).find((name) => name.startsWith('fork-') || name === 'no-fork-cache')
    if (stray !== undefined) fail(`--${stray} needs --fork-url`)
    return undefined
  }
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) fail(`--fork-url must be an http or https URL, got "${url}"`)
  if (parsed['no-fork-cache'] === true && parsed['fork-cache'] !== undefined) fail('--fork-cache cannot be used with --no-fork-cache')
  return {
    url,
    blockNumber: bigint('fork-block-number', parsed['fork-block-number']),
    chainId: bigint('fork-chain-id', parsed['fork-chain-id']),
    retries: integer('fork-retries', parsed['fork-retries']),
    retryBackoffMs: integer('fork-retry-backoff', parsed['fork-retry-backoff']),
    cacheDir: parsed['no-fork-cache'] === true ? false : parsed['fork-cache'],
  }
}

export async function main(): Promise<void> {
  if (process.argv[2] === 'follow') return followMain(process.argv.slice(3))
  const options = parseCommandLine(process.argv.slice(2))
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`)
  let flashchain: Flashchain
  try {
    flashchain = await createFlashchain({ ...options, log: options.quiet ? undefined : log, debug: options.debug ? log : undefined })
  } catch (error) {
    process.stderr.write(`flashchain: ${startFailure(error, options)}\n`)
    process.exit(1)
  }
  if (!options.quiet) {
    const lines = flashchain.chain.spec.accounts.map((account, i) => `  (${i}) ${account.address}  ${account.privateKey}`)
    process.stdout.write(`Chain id ${flashchain.chain.spec.chainId}, dev accounts:\n${lines.join('\n')}\n${banner(flashchain, options)}`)
  }
  const stopMemoryTrim = startMemoryTrim({ log: options.debug ? log : undefined, collectAtFirstRest: true })
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    if (!options.quiet) log(`${signal}: shutting down`)
    stopMemoryTrim()
    flashchain.close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`flashchain: shutdown failed: ${error instanceof Error ? error.stack : error}\n`)
        process.exit(1)
      },
    )
  }
  // Before the listening line: a signal sent as soon as it is read closes the store, as any other does.
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))

  process.stdout.write(`Listening on ${flashchain.url}\n`)
  // The first transaction should not pay for V8 compiling what it runs (src/warmUp.ts). A warm-up that fails costs
  // only its time, and says so.
  warmUp({ hardfork: options.hardfork }).catch((error: unknown) => log(`warm-up failed: ${error instanceof Error ? error.stack : error}`))
}

if (import.meta.main) await main()
