import { describe, expect, test } from 'vitest'

import { createOutputBudget, type BudgetedOutput } from './outputBudget.ts'

/** An output whose bytes wait until told to leave; it records how it was dropped. */
function output(waiting: number, excused = 0) {
  const state = { waiting, drops: 0 }
  const entry: BudgetedOutput = {
    waiting: () => state.waiting,
    excused: () => excused,
    dropped: () => state.drops > 0,
    drop: () => {
      state.drops++
    },
  }
  return { state, entry }
}

describe('createOutputBudget', () => {
  test('default: within the total, nothing is dropped', () => {
    const budget = createOutputBudget(100)
    const a = output(40)
    const b = output(50)
    budget.add(a.entry)
    budget.add(b.entry)
    budget.wrote(90)
    expect([a.state.drops, b.state.drops]).toEqual([0, 0])
  })

  test('past the total, the connection furthest behind is dropped first, then the next, until it is met', () => {
    const budget = createOutputBudget(100)
    const [a, b, c] = [output(30), output(60), output(50)]
    for (const { entry } of [a, b, c]) budget.add(entry)
    budget.wrote(140)
    // 140 waiting: b (60) goes, 80 is within.
    expect([a.state.drops, b.state.drops, c.state.drops]).toEqual([0, 1, 0])
  })

  test('an answer larger than its connection budget is not counted as being behind', () => {
    const budget = createOutputBudget(100)
    const big = output(90, 80)
    const slow = output(30)
    budget.add(big.entry)
    budget.add(slow.entry)
    budget.wrote(120)
    expect([big.state.drops, slow.state.drops]).toEqual([0, 1])
  })

  test('dropped connections may hold as much again; past it, the one furthest behind is dropped again (cut)', () => {
    const budget = createOutputBudget(100)
    const [a, b, c] = [output(90), output(80), output(70)]
    for (const { entry } of [a, b, c]) budget.add(entry)
    budget.wrote(240)
    // a and b are dropped (170 of closing connections, past 100): a, furthest behind, is cut at once.
    expect([a.state.drops, b.state.drops, c.state.drops]).toEqual([2, 1, 0])
  })

  test('a connection that left is not counted', () => {
    const budget = createOutputBudget(100)
    const a = output(90)
    const b = output(90)
    const leave = budget.add(a.entry)
    budget.add(b.entry)
    leave()
    budget.wrote(180)
    expect([a.state.drops, b.state.drops]).toEqual([0, 0])
  })
})
