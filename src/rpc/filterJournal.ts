/**
 * One journal of events shared by every polled filter of a kind, with a cursor per filter (docs/filters.md). An
 * event is appended once, whatever the number of filters, and held only until the oldest cursor has read it, so a
 * filter nobody polls costs one cursor, not a copy of each event.
 *
 * Cursors are kept in the order they last read. A cursor that reads moves to the end of the journal and to the back
 * of that order, so the first cursor is both the one furthest behind and the one idle longest: trimming and expiry
 * look only at the front.
 */

/** A reader's place in the journal: the position of the first entry it has not read, and when it last read. */
export type Cursor<Owner> = { readonly owner: Owner; position: number; readAt: number }

export type Journal<Entry, Owner> = {
  /** A cursor at the end: it reads what is appended from now on. */
  open(owner: Owner, now: number): Cursor<Owner>
  /** The entries appended since the cursor last read, oldest first; the cursor moves to the end. */
  read(cursor: Cursor<Owner>, now: number): Entry[]
  /** Forgets the cursor, and the entries only it had left to read. */
  close(cursor: Cursor<Owner>): void
  /**
   * Appends an entry of `size` items (a block's logs count as many as it has). Nothing is kept while no cursor is
   * open. When more than `capacity` items are held, the oldest entries are dropped, and with them the cursors that
   * had not read them yet, which are returned: a reader that falls that far behind is dropped, not buffered.
   */
  append(entry: Entry, size?: number): Cursor<Owner>[]
  /** Closes the cursors that last read before `time` and returns them, the idlest first. */
  closeIdleSince(time: number): Cursor<Owner>[]
  /** Open cursors. */
  readonly cursors: number
  /** Items held (the sum of the sizes of the entries held). */
  readonly held: number
}

/** `capacity`: most items held for the cursor furthest behind; the newest entry is kept whatever its size. */
export function createJournal<Entry, Owner>(options: { capacity: number }): Journal<Entry, Owner> {
  const { capacity } = options
  // entries[i] and sizes[i] are at position start + i - skip; the first `skip` slots were dropped and are reclaimed
  // once they are half the array, so that trimming the front costs O(1) amortized.
  let entries: (Entry | undefined)[] = []
  let sizes: number[] = []
  let skip = 0
  let start = 0
  let held = 0
  const order = new Set<Cursor<Owner>>()

  const end = () => start + entries.length - skip

  /** Drops the entries before `position`. */
  function dropBefore(position: number) {
    while (start < position) {
      held -= sizes[skip]!
      entries[skip] = undefined
      skip += 1
      start += 1
    }
    if (skip > 32 && skip * 2 >= entries.length) {
      entries = entries.slice(skip)
      sizes = sizes.slice(skip)
      skip = 0
    }
  }

  /** Drops what no open cursor has left to read. */
  function trim() {
    const first = order.values().next()
    dropBefore(first.done === true ? end() : first.value.position)
  }

  return {
    open(owner, now) {
      const cursor = { owner, position: end(), readAt: now }
      order.add(cursor)
      return cursor
    },
    read(cursor, now) {
      if (!order.has(cursor)) return []
      const read = entries.slice(cursor.position - start + skip) as Entry[]
      cursor.position = end()
      cursor.readAt = now
      order.delete(cursor)
      order.add(cursor)
      trim()
      return read
    },
    close(cursor) {
      if (order.delete(cursor)) trim()
    },
    append(entry, size = 1) {
      if (order.size === 0) return []
      entries.push(entry)
      sizes.push(size)
      held += size
      if (held <= capacity) return []
      let keepFrom = start
      for (let i = skip, left = held; left > capacity && i < entries.length - 1; i++) {
        left -= sizes[i]!
        keepFrom += 1
      }
      const dropped: Cursor<Owner>[] = []
      for (const cursor of order) {
        if (cursor.position >= keepFrom) break
        dropped.push(cursor)
      }
      for (const cursor of dropped) order.delete(cursor)
      // Every cursor left is at keepFrom or after it.
      trim()
      return dropped
    },
    closeIdleSince(time) {
      const closed: Cursor<Owner>[] = []
      for (const cursor of order) {
        if (cursor.readAt >= time) break
        closed.push(cursor)
      }
      for (const cursor of closed) order.delete(cursor)
      if (closed.length > 0) trim()
      return closed
    },
    get cursors() {
      return order.size
    },
    get held() {
      return held
    },
  }
}
