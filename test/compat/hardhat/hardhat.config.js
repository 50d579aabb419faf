// Hardhat 2 pointed at a running node (FLASHCHAIN_URL): the network helpers and hardhat-predeploy sniff it with
// web3_clientVersion and refuse anything that is not a development node.
require('@nomicfoundation/hardhat-ethers')
require('@nomicfoundation/hardhat-ignition')
require('hardhat-predeploy')

if (process.env.FLASHCHAIN_URL === undefined) throw new Error('set FLASHCHAIN_URL to the node under test')

module.exports = {
  defaultNetwork: 'node',
  networks: {
    node: {
      url: process.env.FLASHCHAIN_URL,
      // As Hardhat's own `localhost`: the node's accounts (eth_accounts) sign through eth_sendTransaction, so an
      // impersonated account can send too.
      accounts: 'remote',
      timeout: 20_000,
    },
  },
  // MOCHA_REPORT names a file for mocha's JSON report, which the vitest suite reads case by case.
  mocha:
    process.env.MOCHA_REPORT === undefined
      ? { timeout: 20_000 }
      : { timeout: 20_000, reporter: 'json', reporterOption: { output: process.env.MOCHA_REPORT } },
}
