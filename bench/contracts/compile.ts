// Compiles the benchmark's contracts with npm `solc` (the main project's pinned devDependency) and writes one JSON
// artifact beside each source: BenchToken.json (the ERC20 every workload uses) and MiniAmm.json (the pair the fork
// benchmark swaps through). Run once after editing a source: `node bench/contracts/compile.ts`.
// Fixed settings and no metadata hash, so the same source always gives the same bytes.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import solc from 'solc'

const settings = {
  // cancun: every peer (flashchain osaka, anvil, Hardhat's EDR) runs it, PUSH0 and MCOPY included.
  evmVersion: 'cancun',
  optimizer: { enabled: true, runs: 200 },
  metadata: { bytecodeHash: 'none' },
}

/** Each contract is its own source file of the same name. */
const CONTRACTS = ['BenchToken', 'MiniAmm']

type Output = {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>
}

const here = (file: string) => fileURLToPath(new URL(`./${file}`, import.meta.url))
const sources = Object.fromEntries(CONTRACTS.map((name) => [`${name}.sol`, { content: readFileSync(here(`${name}.sol`), 'utf8') }]))
const input = {
  language: 'Solidity',
  sources,
  settings: { ...settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
}
const output = JSON.parse(solc.compile(JSON.stringify(input))) as Output
const problems = (output.errors ?? []).filter((error) => error.severity !== 'info')
if (problems.length > 0) throw new Error(problems.map((error) => error.formattedMessage).join('\n'))
for (const name of CONTRACTS) {
  const contract = output.contracts[`${name}.sol`]![name]!
  const artifact = {
    contractName: name,
    compiler: { version: solc.version(), settings },
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  }
  const target = here(`${name}.json`)
  writeFileSync(target, `${JSON.stringify(artifact, null, 2)}\n`)
  console.log(`wrote ${target} (solc ${artifact.compiler.version}, ${(artifact.deployedBytecode.length - 2) / 2} bytes deployed)`)
}
