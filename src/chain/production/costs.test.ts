import { expect, test } from 'vitest'

import { createCostEstimate } from './costs.ts'

test('a cost estimate follows what steps took per transaction, the newest weighing 0.3, and a step of none teaches nothing', () => {
  const cost = createCostEstimate()
  expect(cost.perTransaction).toBe(0)
  cost.observe(100, 100)
  expect(cost.perTransaction).toBeCloseTo(0.3)
  cost.observe(50, 0)
  expect(cost.perTransaction).toBeCloseTo(0.3)
  cost.observe(200, 100)
  expect(cost.perTransaction).toBeCloseTo(0.7 * 0.3 + 0.3 * 2)
})
