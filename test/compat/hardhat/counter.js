// The Counter of the forge project, compiled with solc-js, so Hardhat never downloads a compiler.
const fs = require('node:fs')
const path = require('node:path')

const solc = require('solc')

const source = fs.readFileSync(path.join(__dirname, '..', 'foundry', 'src', 'Counter.sol'), 'utf8')
const input = {
  language: 'Solidity',
  sources: { 'Counter.sol': { content: source } },
  settings: { evmVersion: 'prague', outputSelection: { '*': { Counter: ['abi', 'evm.bytecode.object'] } } },
}
const { abi, evm } = JSON.parse(solc.compile(JSON.stringify(input))).contracts['Counter.sol'].Counter

/** In Hardhat's artifact format, which Hardhat Ignition takes as it is. */
module.exports = {
  _format: 'hh-sol-artifact-1',
  contractName: 'Counter',
  sourceName: 'Counter.sol',
  abi,
  bytecode: `0x${evm.bytecode.object}`,
  deployedBytecode: '0x',
  linkReferences: {},
  deployedLinkReferences: {},
}
