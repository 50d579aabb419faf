/**
 * Writes src/chain/opstack/predeploys.data.ts: the OP Stack's predeploys, their implementations and the
 * preinstalls, as a genesis carries them.
 *
 *   node scripts/make-opstack-predeploys.ts GENESIS L1_BLOCK_RUNTIME GAS_PRICE_ORACLE_RUNTIME
 *
 * GENESIS is the geth-style genesis of the `sepolia-devnet-2` chain from ethereum-optimism/superchain-registry (MIT),
 * `superchain/extra/genesis/sepolia-devnet-2/sepolia-devnet-2.json.zst` at commit
 * 8336d2aedd19b87a57b01ae36ba4afef8ea377d0, decompressed with the registry's zstd dictionary
 * (`superchain/extra/dictionary` at the same commit). Every account of the namespace 0x4200…0000-0x4200…07ff is kept
 * with its storage, with the implementations its proxies name, the preinstalls (ethereum-optimism/specs,
 * `specs/protocol/preinstalls.md`, and contracts-bedrock's `src/libraries/Preinstalls.sol`) and the contracts of
 * EIP-4788 and EIP-2935 where src/chain/spec/systemContracts.ts does not already carry them. The chain's funded
 * accounts and every other account are left out, and no account keeps a balance.
 *
 * L1_BLOCK_RUNTIME and GAS_PRICE_ORACLE_RUNTIME are the runtime code (0x-hex) that the creation code of the Jovian
 * network upgrade leaves behind: ethereum-optimism/specs (CC0), `specs/static/bytecode/jovian-l1-block-deployment.txt`
 * and `jovian-gas-price-oracle-deployment.txt` at commit fd72cf797df6778fca67177c5335563bc602757c, as
 * `specs/protocol/jovian/derivation.md` deploys them. Their code hashes are the ones that section requires; the script
 * refuses any other code. They replace the code at the implementations of the L1Block and GasPriceOracle proxies, so
 * that both contracts compute the fees by the Jovian rules the chain charges (src/chain/opstack/l1Cost.ts), whichever
 * version the devnet had.
 *
 * The L1Block proxy's storage gets the L1 attributes of a real Base L1-attributes deposit (the Ecotone-format deposit
 * with source hash 0x871ec5fb6afe7e5ae950bbb4cfd7d7cb277b413e67da806d50834a814b14c9f4, for L1 block 22438497 of
 * 2025-05-08), so that the L1 fee is not zero before the first block's deposit sets them.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

import { keccak256 } from '../src/chain/crypto/keccak.ts'
import { GAS_PRICE_ORACLE, L1_BLOCK } from '../src/chain/opstack/addresses.ts'
import { systemContracts } from '../src/chain/spec/systemContracts.ts'
import { bytesToHex, hexToBytes } from '../src/hex.ts'

import type { Hex } from '../src/hex.ts'

const output = join(resolve(import.meta.dirname, '..'), 'src/chain/opstack/predeploys.data.ts')

type GenesisAccount = { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }
type Account = { address: Hex; code: Hex; nonce?: number; storage: Map<Hex, Hex> }

const ADMIN_SLOT: Hex = '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103'
const IMPLEMENTATION_SLOT: Hex = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc'
const PROXY_ADMIN: Hex = word(0x4200000000000000000000000000000000000018n)

/** The Jovian implementations, by the code hash specs/protocol/jovian/derivation.md requires of each deployment. */
const jovian = {
  l1Block: { codeHash: '0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1', version: '1.7.0' },
  gasPriceOracle: { codeHash: '0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614', version: '1.6.0' },
} as const

/** specs/protocol/preinstalls.md and contracts-bedrock's Preinstalls.sol, with the licence each source carries. */
const preinstalls: readonly { name: string; address: Hex; licence: string }[] = [
  { name: 'Safe v1.3.0', address: '0x69f4d1788e39c87893c980c06edf4b7f686e2938', licence: 'LGPL-3.0-only' },
  { name: 'SafeL2 v1.3.0', address: '0xfb1bffc9d739b8d520daf37df666da4c687191ea', licence: 'LGPL-3.0-only' },
  { name: 'MultiSend v1.3.0', address: '0x998739bfdaadde7c933b942a68053933098f9eda', licence: 'LGPL-3.0-only' },
  { name: 'MultiSendCallOnly v1.3.0', address: '0xa1dabef33b3b82c7814b6d82a79e50f4ac44102b', licence: 'LGPL-3.0-only' },
  { name: 'SafeSingletonFactory', address: '0x914d7fec6aac8cd542e72bca78b30650d45643d7', licence: 'MIT' },
  { name: 'Multicall3', address: '0xca11bde05977b3631167028862be2a173976ca11', licence: 'MIT' },
  { name: 'Create2Deployer', address: '0x13b0d85ccb8bf860b6b79af3029fca081ae9bef2', licence: 'MIT' },
  { name: 'CreateX', address: '0xba5ed099633d3b313e4d5f7bdc1305d3c28ba5ed', licence: 'AGPL-3.0-only' },
  { name: "Arachnid's deterministic deployment proxy", address: '0x4e59b44847b379578588920ca78fbf26c0b4956c', licence: 'Unlicense' },
  { name: 'Permit2', address: '0x000000000022d473030f116ddee9f6b43ac78ba3', licence: 'MIT' },
  { name: 'ERC-4337 EntryPoint v0.6.0', address: '0x5ff137d4b0fdcd49dca30c7cf57e578a026d2789', licence: 'GPL-3.0' },
  { name: 'ERC-4337 SenderCreator v0.6.0', address: '0x7fc98430eaedbb6070b35b39d798725049088348', licence: 'GPL-3.0' },
  { name: 'ERC-4337 EntryPoint v0.7.0', address: '0x0000000071727de22e5e9d8baf0edac6f37da032', licence: 'GPL-3.0' },
  { name: 'ERC-4337 SenderCreator v0.7.0', address: '0xefc2c1444ebcc4db75e7613d20c6a62ff67a167c', licence: 'GPL-3.0' },
]

/** The Base L1-attributes deposit's values; L1Block packs several into one slot, low-order first. */
const l1Attributes = {
  number: 0x1566261n,
  timestamp: 0x681c941fn,
  basefee: 0x5f629c02n,
  hash: '0x937badfbcce566e0ba932a3f7659644aa0c6ef019541d3134a1d8cb9f84d45c7',
  baseFeeScalar: 2269n,
  blobBaseFeeScalar: 1055762n,
  batcherHash: '0x0000000000000000000000005050f69a9786f081509234f1a7f4684b5e5b76c9',
  blobBaseFee: 1n,
  // The default Jovian sets when the SystemConfig gives none (specs/protocol/jovian/l1-attributes.md).
  daFootprintGasScalar: 400n,
} as const

/** L1Block's storage layout: number | timestamp << 64 in slot 0, the scalars beside sequenceNumber (0) in slot 3. */
const l1BlockSlots: Record<number, Hex> = {
  0: word((l1Attributes.timestamp << 64n) | l1Attributes.number),
  1: word(l1Attributes.basefee),
  2: l1Attributes.hash,
  3: word((l1Attributes.baseFeeScalar << 96n) | (l1Attributes.blobBaseFeeScalar << 64n)),
  4: l1Attributes.batcherHash,
  7: word(l1Attributes.blobBaseFee),
  // operatorFeeConstant (uint64) and operatorFeeScalar (uint32) stay 0 below daFootprintGasScalar.
  8: word(l1Attributes.daFootprintGasScalar << 96n),
}

function word(value: bigint): Hex {
  return `0x${value.toString(16).padStart(64, '0')}`
}

function fail(message: string): never {
  throw new Error(message)
}

function readRuntime(path: string, expected: { codeHash: string; version: string }, name: string): Hex {
  const code = readFileSync(path, 'utf8').trim().toLowerCase() as Hex
  if (!/^0x([0-9a-f]{2})+$/.test(code)) fail(`${path}: not 0x-hex runtime code`)
  const hash = bytesToHex(keccak256(hexToBytes(code)))
  if (hash !== expected.codeHash) fail(`${path}: code hash ${hash}, not the Jovian ${name} ${expected.version} (${expected.codeHash})`)
  return code
}

function readAccount(alloc: Record<string, GenesisAccount>, address: Hex): Account | undefined {
  const source = alloc[address.slice(2)]
  if (source === undefined) return undefined
  if (source.code === undefined || source.code === '0x') fail(`${address} has no code`)
  const storage = new Map<Hex, Hex>()
  for (const [key, value] of Object.entries(source.storage ?? {})) {
    // A zero word is an empty slot: a genesis does not store it.
    if (BigInt(value) !== 0n) storage.set(word(BigInt(key)), word(BigInt(value)))
  }
  return {
    address,
    code: source.code.toLowerCase() as Hex,
    ...(source.nonce === undefined || BigInt(source.nonce) === 0n ? {} : { nonce: Number(BigInt(source.nonce)) }),
    storage,
  }
}

function implementationOf(proxy: Account): Hex {
  const slot = proxy.storage.get(IMPLEMENTATION_SLOT) ?? fail(`${proxy.address} names no implementation`)
  return `0x${slot.slice(26)}`
}

function make(genesisPath: string, l1BlockPath: string, gasPriceOraclePath: string): void {
  const genesis = JSON.parse(readFileSync(genesisPath, 'utf8')) as { alloc: Record<string, GenesisAccount> }
  const alloc = Object.fromEntries(Object.entries(genesis.alloc).map(([address, account]) => [address.toLowerCase().replace(/^0x/, ''), account]))
  const l1BlockCode = readRuntime(l1BlockPath, jovian.l1Block, 'L1Block')
  const gasPriceOracleCode = readRuntime(gasPriceOraclePath, jovian.gasPriceOracle, 'GasPriceOracle')

  const namespace: Account[] = []
  for (let i = 0n; i < 0x800n; i++) {
    const account = readAccount(alloc, `0x${(0x4200000000000000000000000000000000000000n + i).toString(16)}`)
    if (account !== undefined) namespace.push(account)
  }
  const implementations: Account[] = []
  for (const proxy of namespace) {
    if (!proxy.storage.has(IMPLEMENTATION_SLOT)) continue
    const address = implementationOf(proxy)
    implementations.push(readAccount(alloc, address) ?? fail(`${proxy.address} names ${address}, which the genesis lacks`))
  }
  implementations.sort((a, b) => (a.address < b.address ? -1 : 1))
  const missing: string[] = []
  const preinstalled: Account[] = []
  for (const preinstall of preinstalls) {
    const account = readAccount(alloc, preinstall.address)
    if (account === undefined) missing.push(preinstall.name)
    else preinstalled.push(account)
  }
  const carried = new Set(Object.values(systemContracts).map((contract) => contract.address))
  const system: Account[] = []
  for (const address of ['0x000f3df6d732807ef1319fb7b8bb8522d0beac02', '0x0000f90827f1c53a10cb7a02335b175320002935'] as const) {
    if (carried.has(address)) continue
    const account = readAccount(alloc, address)
    if (account === undefined) missing.push(address)
    else system.push(account)
  }

  // Jovian's code at the implementations the devnet's proxies name.
  const byAddress = new Map(implementations.map((account) => [account.address, account]))
  const proxy = (address: Hex) => namespace.find((account) => account.address === address) ?? fail(`the genesis lacks ${address}`)
  byAddress.get(implementationOf(proxy(L1_BLOCK)))!.code = l1BlockCode
  byAddress.get(implementationOf(proxy(GAS_PRICE_ORACLE)))!.code = gasPriceOracleCode
  for (const [slot, value] of Object.entries(l1BlockSlots)) proxy(L1_BLOCK).storage.set(word(BigInt(slot)), value)

  const groups = [
    { kind: 'predeploys', title: 'The namespace 0x4200…0000-0x4200…07ff: proxies that ProxyAdmin administers, and WETH', accounts: namespace },
    { kind: 'implementations', title: 'The implementations the proxies name', accounts: implementations },
    { kind: 'preinstalls', title: 'The preinstalls', accounts: preinstalled },
    { kind: 'system contracts', title: 'System contracts the chain does not carry yet', accounts: system },
  ].filter((group) => group.accounts.length > 0)
  writeFileSync(output, render(groups, { l1Block: implementationOf(proxy(L1_BLOCK)), gasPriceOracle: implementationOf(proxy(GAS_PRICE_ORACLE)) }))
  const kept = groups.flatMap((group) => group.accounts)
  const codes = new Set(kept.map((account) => account.code)).size
  const dropped = Object.keys(alloc).length - kept.length
  process.stdout.write(
    `${output}: ${groups.map((group) => `${group.accounts.length} ${group.kind}`).join(', ')}, ${codes} codes; ${dropped} accounts left out\n`,
  )
  if (missing.length > 0) process.stdout.write(`not in the genesis: ${missing.join(', ')}\n`)
}

function render(groups: readonly { title: string; accounts: readonly Account[] }[], upgraded: { l1Block: Hex; gasPriceOracle: Hex }): string {
  const codes: Hex[] = []
  const codeIndex = new Map<Hex, number>()
  const named = new Map<Hex, string>([
    [ADMIN_SLOT, 'ADMIN_SLOT'],
    [IMPLEMENTATION_SLOT, 'IMPLEMENTATION_SLOT'],
  ])
  const namedValue = new Map<Hex, string>([[PROXY_ADMIN, 'PROXY_ADMIN']])
  const lines: string[] = []
  for (const group of groups) {
    lines.push(`  // ${group.title}`)
    for (const account of group.accounts) {
      let code = codeIndex.get(account.code)
      if (code === undefined) codeIndex.set(account.code, (code = codes.push(account.code) - 1))
      const storage = [...account.storage].sort(([a], [b]) => (a < b ? -1 : 1))
      const pairs = storage.map(([key, value]) => `[${named.get(key) ?? `'${key}'`}, ${namedValue.get(value) ?? `'${value}'`}]`)
      const fields = [`address: '${account.address}'`, `code: ${code}`]
      if (account.nonce !== undefined) fields.push(`nonce: ${account.nonce}`)
      if (pairs.length > 0) fields.push(`storage: [${pairs.join(', ')}]`)
      lines.push(`  { ${fields.join(', ')} },`)
    }
  }
  const licences = preinstalls.map((preinstall) => ` *   ${preinstall.name}: ${preinstall.licence}`).join('\n')
  return `/**
 * Generated by scripts/make-opstack-predeploys.ts; remake it with that script rather than editing it.
 *
 * Sources:
 * - ethereum-optimism/superchain-registry (MIT), superchain/extra/genesis/sepolia-devnet-2/sepolia-devnet-2.json.zst at
 *   commit 8336d2aedd19b87a57b01ae36ba4afef8ea377d0: every account below, with its code, nonce and storage, except:
 * - ethereum-optimism/specs (CC0), specs/static/bytecode/jovian-l1-block-deployment.txt and
 *   jovian-gas-price-oracle-deployment.txt at commit fd72cf797df6778fca67177c5335563bc602757c: the runtime code of
 *   L1Block ${jovian.l1Block.version} (code hash ${jovian.l1Block.codeHash}) and GasPriceOracle ${jovian.gasPriceOracle.version}
 *   (${jovian.gasPriceOracle.codeHash}), at the implementations the devnet's proxies name.
 * - The L1Block proxy's slots 0-4, 7 and 8: the L1 attributes of a Base L1-attributes deposit for L1 block
 *   ${l1Attributes.number} (source hash 0x871ec5fb6afe7e5ae950bbb4cfd7d7cb277b413e67da806d50834a814b14c9f4), with sequence
 *   number 0 and Jovian's default daFootprintGasScalar of ${l1Attributes.daFootprintGasScalar}.
 *
 * Licences of the code: the OP Stack's contracts (ethereum-optimism/optimism, packages/contracts-bedrock) are MIT,
 * except WETH (WETH98) at 0x4200…0006, GPL-3.0. The preinstalls carry their own:
${licences}
 */
import type { Hex } from '../../hex.ts'

/** EIP-1967's admin slot: bytes32(uint256(keccak256('eip1967.proxy.admin')) - 1). */
const ADMIN_SLOT = '${ADMIN_SLOT}'
/** EIP-1967's implementation slot: bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1). */
const IMPLEMENTATION_SLOT = '${IMPLEMENTATION_SLOT}'
/** The ProxyAdmin predeploy, 0x4200…0018, which administers every proxy. */
const PROXY_ADMIN = '${PROXY_ADMIN}'

/** The implementations that run the Jovian network upgrade's code instead of the devnet's. */
export const jovianImplementations = {
  l1Block: {
    address: '${upgraded.l1Block}',
    version: '${jovian.l1Block.version}',
    codeHash: '${jovian.l1Block.codeHash}',
  },
  gasPriceOracle: {
    address: '${upgraded.gasPriceOracle}',
    version: '${jovian.gasPriceOracle.version}',
    codeHash: '${jovian.gasPriceOracle.codeHash}',
  },
} as const

/** Each distinct runtime code once; accounts name theirs by index. */
// biome-ignore format: one code per line, as generated
export const codes: readonly Hex[] = [
${codes.map((code) => `  '${code}',`).join('\n')}
]

// Written against string, not Hex: checked against a template literal type, each address would keep its own literal
// type, and the array's element type would be a union of 2,000 and more objects, more than the compiler represents.
// biome-ignore format: one account per line, as generated
const data: readonly { address: string; code: number; nonce?: number; storage?: readonly (readonly [string, string])[] }[] = [
${lines.join('\n')}
]

/** The genesis accounts, one a line; none has a balance. Storage words are 32 bytes, as the genesis gives them. */
export const accounts = data as readonly { address: Hex; code: number; nonce?: number; storage?: readonly (readonly [Hex, Hex])[] }[]
`
}

const [genesisPath, l1BlockPath, gasPriceOraclePath] = process.argv.slice(2)
if (genesisPath === undefined || l1BlockPath === undefined || gasPriceOraclePath === undefined) {
  process.stderr.write('usage: node scripts/make-opstack-predeploys.ts GENESIS L1_BLOCK_RUNTIME GAS_PRICE_ORACLE_RUNTIME\n')
  process.exit(2)
}
make(genesisPath, l1BlockPath, gasPriceOraclePath)
