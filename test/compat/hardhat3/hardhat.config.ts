// Hardhat 3 pointed at a running node (FLASHCHAIN_URL). Its network helpers sniff web3_clientVersion and refuse
// anything that is not a development node.
import hardhatNetworkHelpers from '@nomicfoundation/hardhat-network-helpers'
import { defineConfig } from 'hardhat/config'

if (process.env.FLASHCHAIN_URL === undefined) throw new Error('set FLASHCHAIN_URL to the node under test')

export default defineConfig({
  plugins: [hardhatNetworkHelpers],
  networks: {
    target: { type: 'http', url: process.env.FLASHCHAIN_URL, accounts: 'remote' },
  },
})
