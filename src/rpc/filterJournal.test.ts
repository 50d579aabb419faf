import { describe, expect, test } from 'vitest'

import { createJournal } from './filterJournal.ts'

describe('createJournal', () => {
  test('default: a cursor reads what was appended after it opened, each entry once', () => {
    const journal = createJournal<string, string>({ capacity: 100 })
    journal.append('before')
    const cursor = journal.open('a', 0)
    journal.append('x')
    journal.append('y')
    expect(journal.read(cursor, 1)).toEqual(['x', 'y'])
    expect(journal.read(cursor, 2)).toEqual([])
    journal.append('z')
    expect(journal.read(cursor, 3)).toEqual(['z'])
  })

  test('holds nothing while no cursor is open', () => {
    const journal = createJournal<number, string>({ capacity: 100 })
    for (let i = 0; i < 10; i++) expect(journal.append(i)).toEqual([])
    expect(journal.held).toBe(0)
  })

  test('holds only what the cursor furthest behind has left to read', () => {
    const journal = createJournal<number, string>({ capacity: 100 })
    const behind = journal.open('behind', 0)
    const ahead = journal.open('ahead', 0)
    journal.append(1)
    journal.append(2)
    expect(journal.read(ahead, 1)).toEqual([1, 2])
    expect(journal.held).toBe(2)
    journal.append(3)
    expect(journal.read(behind, 2)).toEqual([1, 2, 3])
    // Now `ahead` is the one behind, with 3 left to read.
    expect(journal.held).toBe(1)
    expect(journal.read(ahead, 3)).toEqual([3])
    expect(journal.held).toBe(0)
  })

  test('closing the cursor furthest behind frees what only it had left to read', () => {
    const journal = createJournal<number, string>({ capacity: 100 })
    const idle = journal.open('idle', 0)
    journal.append(1)
    const later = journal.open('later', 0)
    journal.append(2)
    expect(journal.held).toBe(2)
    journal.close(idle)
    expect(journal.held).toBe(1)
    expect(journal.cursors).toBe(1)
    expect(journal.read(later, 1)).toEqual([2])
    // A closed cursor reads nothing more.
    journal.append(3)
    expect(journal.read(idle, 2)).toEqual([])
  })

  test('sizes: a cursor more than capacity items behind is dropped and returned; the others keep every entry', () => {
    const journal = createJournal<string, string>({ capacity: 5 })
    const idle = journal.open('idle', 0)
    const polled = journal.open('polled', 0)
    const seen: string[] = []
    for (const entry of ['a', 'b', 'c']) {
      expect(journal.append(entry, 2)).toEqual(entry === 'c' ? [idle] : [])
      seen.push(...journal.read(polled, 1))
    }
    expect(seen).toEqual(['a', 'b', 'c'])
    expect(journal.cursors).toBe(1)
    expect(journal.read(idle, 2)).toEqual([])
    expect(journal.held).toBe(0)
  })

  test('the newest entry is kept whatever its size', () => {
    const journal = createJournal<string, string>({ capacity: 3 })
    const cursor = journal.open('a', 0)
    expect(journal.append('huge', 10)).toEqual([])
    expect(journal.read(cursor, 1)).toEqual(['huge'])
    journal.append('small')
    expect(journal.append('huge again', 10)).toEqual([cursor])
  })

  test('closeIdleSince closes the cursors that last read before the time, idlest first', () => {
    const journal = createJournal<number, string>({ capacity: 100 })
    const a = journal.open('a', 0)
    journal.open('b', 10)
    journal.open('c', 20)
    journal.append(1)
    journal.read(a, 30)
    expect(journal.closeIdleSince(25).map((cursor) => cursor.owner)).toEqual(['b', 'c'])
    expect(journal.cursors).toBe(1)
    expect(journal.closeIdleSince(30)).toEqual([])
    journal.append(2)
    expect(journal.read(a, 40)).toEqual([2])
  })

  test('positions stay right across many appends, reads and compactions', () => {
    const journal = createJournal<number, string>({ capacity: 10_000 })
    const slow = journal.open('slow', 0)
    const fast = journal.open('fast', 0)
    let next = 0
    let slowExpected = 0
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 7; i++) journal.append(next++)
      const read = journal.read(fast, round)
      expect(read).toEqual(Array.from({ length: 7 }, (_, i) => next - 7 + i))
      if (round % 13 === 0) {
        const caughtUp = journal.read(slow, round)
        expect(caughtUp).toEqual(Array.from({ length: next - slowExpected }, (_, i) => slowExpected + i))
        slowExpected = next
      }
    }
    expect(journal.held).toBe(next - slowExpected)
  })
})
