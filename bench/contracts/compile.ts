// Compiles BenchToken.sol with npm `solc` (the main project's pinned devDependency) and writes BenchToken.json,
// which the benchmark deploys. Run once after editing the source: `node bench/contracts/compile.ts`.
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

type Output = {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>
}

const source = readFileSync(fileURLToPath(new URL('./BenchToken.sol', import.meta.url)), 'utf8')
const input = {
  language: 'Solidity',
  sources: { 'BenchToken.sol': { content: source } },
  settings: { ...settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
}
const output = JSON.parse(solc.compile(JSON.stringify(input))) as Output
const problems = (output.errors ?? []).filter((error) => error.severity !== 'info')
if (problems.length > 0) throw new Error(problems.map((error) => error.formattedMessage).join('\n'))
const contract = output.contracts['BenchToken.sol']!.BenchToken!
const artifact = {
  contractName: 'BenchToken',
  compiler: { version: solc.version(), settings },
  abi: contract.abi,
  bytecode: `0x${contract.evm.bytecode.object}`,
  deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
}
const target = fileURLToPath(new URL('./BenchToken.json', import.meta.url))
writeFileSync(target, `${JSON.stringify(artifact, null, 2)}\n`)
console.log(`wrote ${target} (solc ${artifact.compiler.version}, ${(artifact.deployedBytecode.length - 2) / 2} bytes deployed)`)
