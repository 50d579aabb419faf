// Compiles the shipped contracts (contracts/*.sol) with the pinned npm `solc` (standard JSON) and, when run as a
// script (`node contracts/compile.ts`), writes their artifacts beside them (contracts/*.json).
// The settings are fixed and the metadata hash is left out of the bytecode, so the same source
// always gives the same bytes; the contracts' tests recompile and compare with the JSON.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import solc from 'solc'

export const SOLC_VERSION = '0.8.37+commit.f401782d.Emscripten.clang'

/** The compiler settings recorded in the artifact (outputSelection is added per call). */
export const SETTINGS = {
  evmVersion: 'prague',
  viaIR: false,
  optimizer: { enabled: true, runs: 200 },
  metadata: { bytecodeHash: 'none' },
} as const

export type Settings = Omit<typeof SETTINGS, 'evmVersion'> & { evmVersion: string }

export type Hex = `0x${string}`

export interface AbiParam {
  name: string
  type: string
  internalType?: string
  components?: AbiParam[]
}

export interface AbiItem {
  type: 'function' | 'error' | 'event' | 'constructor' | 'receive' | 'fallback'
  name?: string
  inputs?: AbiParam[]
  outputs?: AbiParam[]
  stateMutability?: 'pure' | 'view' | 'nonpayable' | 'payable'
}

export interface Artifact {
  contractName: string
  compiler: { version: string; settings: Settings }
  abi: AbiItem[]
  bytecode: Hex
  deployedBytecode: Hex
}

interface SolcMessage {
  severity: 'error' | 'warning' | 'info'
  formattedMessage: string
}

interface SolcOutput {
  errors?: SolcMessage[]
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: AbiItem[]
        evm: { bytecode: { object: string }; deployedBytecode: { object: string } }
      }
    >
  >
}

/**
 * Compiles `contractName` out of one source file with the fixed settings. Any error or
 * warning throws: the shipped contracts compile cleanly. Exported for tests that build
 * small helper contracts the same way.
 */
export function compileSolidity(sourceName: string, source: string, contractName: string, evmVersion: string = SETTINGS.evmVersion): Artifact {
  const version = solc.version() as string
  if (version !== SOLC_VERSION) {
    throw new Error(`expected solc ${SOLC_VERSION}, the installed one is ${version}`)
  }
  const input = {
    language: 'Solidity',
    sources: { [sourceName]: { content: source } },
    settings: {
      ...SETTINGS,
      evmVersion,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as SolcOutput
  const problems = (output.errors ?? []).filter((e) => e.severity !== 'info')
  if (problems.length > 0) {
    throw new Error(`solc reported:\n${problems.map((e) => e.formattedMessage).join('\n')}`)
  }
  const contract = output.contracts?.[sourceName]?.[contractName]
  if (contract === undefined) throw new Error(`solc produced no ${contractName} in ${sourceName}`)
  return {
    contractName,
    compiler: { version, settings: { ...SETTINGS, evmVersion } },
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  }
}

/**
 * The contracts the package ships, each contracts/NAME.sol compiled to contracts/NAME.json, with the EVM version it
 * targets: the batch executor needs Prague's EIP-7702; the warm-up runs on every hardfork a chain can be started with.
 */
const EVM_VERSIONS = { BatchExecutor: 'prague', WarmUp: 'london' } as const
export type ShippedContract = keyof typeof EVM_VERSIONS
export const SHIPPED = Object.keys(EVM_VERSIONS) as ShippedContract[]

export const artifactPath = (name: ShippedContract) => fileURLToPath(new URL(`./${name}.json`, import.meta.url))
export const ARTIFACT_PATH = artifactPath('BatchExecutor')

export function compileShipped(name: ShippedContract): Artifact {
  const source = readFileSync(new URL(`./${name}.sol`, import.meta.url), 'utf8')
  return compileSolidity(`contracts/${name}.sol`, source, name, EVM_VERSIONS[name])
}

export const compileBatchExecutor = () => compileShipped('BatchExecutor')

if (import.meta.main) {
  for (const name of SHIPPED) {
    const artifact = compileShipped(name)
    writeFileSync(artifactPath(name), `${JSON.stringify(artifact, null, 2)}\n`)
    const size = (artifact.deployedBytecode.length - 2) / 2
    console.log(`wrote ${artifactPath(name)} (solc ${artifact.compiler.version}, ${size} bytes deployed)`)
  }
}
