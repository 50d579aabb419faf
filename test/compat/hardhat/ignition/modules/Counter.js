// Deploys a Counter at 7 and increments it once, as `hardhat ignition deploy` runs a module.
const { buildModule } = require('@nomicfoundation/hardhat-ignition/modules')

const counterArtifact = require('../../counter.js')

module.exports = buildModule('CounterModule', (m) => {
  const counter = m.contract('Counter', counterArtifact, [7])
  m.call(counter, 'increment', [])
  return { counter }
})
