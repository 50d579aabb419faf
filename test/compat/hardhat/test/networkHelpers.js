// hardhat-network-helpers 1.x and hardhat-predeploy against the node at FLASHCHAIN_URL, each answer asserted exactly.
const assert = require('node:assert/strict')
const fs = require('node:fs')

const { ethers } = require('hardhat')
const helpers = require('@nomicfoundation/hardhat-network-helpers')

const counterArtifact = require('../counter.js')

async function deployCounter() {
  const [deployer] = await ethers.getSigners()
  const factory = new ethers.ContractFactory(counterArtifact.abi, counterArtifact.bytecode, deployer)
  const counter = await factory.deploy(5)
  await counter.waitForDeployment()
  return { counter, deployer }
}

// ethers' wait() returns as soon as it finds a receipt, and on a block clock that can be a pre-confirmed one, whose
// state `latest` does not hold until the block seals (README, "Coming from anvil or Hardhat"). So on the clock a read
// right after wait() names `pending`, as a dApp on Base would; on a node that mines when asked, `latest` holds it.
const afterWait = process.env.MINING === 'auto' ? 'latest' : 'pending'

describe('hardhat-network-helpers 1.x', () => {
  it('loadFixture deploys once and reverts to it', async () => {
    const first = await helpers.loadFixture(deployCounter)
    assert.equal(await first.counter.number({ blockTag: afterWait }), 5n)
    await (await first.counter.increment()).wait()
    assert.equal(await first.counter.number({ blockTag: afterWait }), 6n)

    const second = await helpers.loadFixture(deployCounter)
    assert.equal(await second.counter.getAddress(), await first.counter.getAddress())
    assert.equal(await second.counter.number({ blockTag: afterWait }), 5n)
  })

  it('setBalance sets an exact balance', async () => {
    const address = '0x00000000000000000000000000000000000c0ffe'
    await helpers.setBalance(address, 123_456_789n)
    assert.equal(await ethers.provider.getBalance(address), 123_456_789n)
  })

  it('impersonateAccount sends from an account with no key', async () => {
    const whale = '0x000000000000000000000000000000000000beef'
    const recipient = '0x000000000000000000000000000000000000f00d'
    await helpers.setBalance(whale, ethers.parseEther('10'))
    await helpers.impersonateAccount(whale)
    const signer = await ethers.getSigner(whale)
    const receipt = await (await signer.sendTransaction({ to: recipient, value: 1_000n })).wait()
    assert.equal(receipt.status, 1)
    assert.equal(receipt.from.toLowerCase(), whale)
    assert.equal(await ethers.provider.getBalance(recipient, afterWait), 1_000n)
    await helpers.stopImpersonatingAccount(whale)
  })
})

// Exact block numbers and timestamps hold only on a node that mines when asked (MINING=auto), as Hardhat's network
// and anvil do by default: on a block clock, a block of the clock's may land between two reads, on any node.
const onDemand = process.env.MINING === 'auto' ? describe : describe.skip

onDemand('hardhat-network-helpers 1.x, blocks and time', () => {
  it('mine adds blocks', async () => {
    const before = await ethers.provider.getBlockNumber()
    await helpers.mine(3)
    assert.equal(await ethers.provider.getBlockNumber(), before + 3)
  })

  it('time.increase and time.increaseTo set the next block timestamp', async () => {
    const latest = await helpers.time.latest()
    assert.equal(await helpers.time.increase(3600), latest + 3600)
    assert.equal(await helpers.time.latest(), latest + 3600)
    assert.equal((await ethers.provider.getBlock('latest')).timestamp, latest + 3600)

    const target = latest + 86_400
    await helpers.time.increaseTo(target)
    assert.equal(await helpers.time.latest(), target)
    assert.equal((await ethers.provider.getBlock('latest')).timestamp, target)
  })

  it('takeSnapshot restores balances and the block number', async () => {
    const address = '0x0000000000000000000000000000000000005a9e'
    await helpers.setBalance(address, 1n)
    await helpers.mine()
    const number = await ethers.provider.getBlockNumber()
    const snapshot = await helpers.takeSnapshot()
    await helpers.setBalance(address, 2n)
    await helpers.mine(2)
    assert.equal(await ethers.provider.getBalance(address), 2n)
    await snapshot.restore()
    assert.equal(await ethers.provider.getBalance(address), 1n)
    assert.equal(await ethers.provider.getBlockNumber(), number)
  })
})

describe('hardhat-predeploy', () => {
  it('puts its contracts on the node', async () => {
    const address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
    // The plugin's bytecode files are raw bytes.
    const bytecode = fs.readFileSync(require.resolve(`hardhat-predeploy/bin/${address}.bytecode`)).toString('hex')
    assert.equal(bytecode.length, 18_690)
    // Compared by hash: a failure prints two short lines instead of two 9 kB codes.
    assert.equal(ethers.keccak256(await ethers.provider.getCode(address)), ethers.keccak256(`0x${bytecode}`))
  })
})
