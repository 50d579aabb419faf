import { useState } from 'preact/hooks'

/** What the box takes, said where a search it cannot follow is refused. */
const ACCEPTED = 'Enter a transaction hash (0x and 64 hex digits), a block number (or latest, pending) or an address (0x and 40 hex digits).'

/** A search's destination: a 32-byte hash is a transaction, 20 bytes an account, a number a block. */
function destination(query: string): string | undefined {
  if (/^0x[0-9a-fA-F]{64}$/.test(query)) return `#/tx/${query}`
  if (/^0x[0-9a-fA-F]{40}$/.test(query)) return `#/address/${query}`
  if (/^\d+$/.test(query) || /^0x[0-9a-fA-F]{1,16}$/.test(query)) return `#/block/${BigInt(query)}`
  if (query === 'pending' || query === 'latest') return `#/block/${query}`
  return undefined
}

export function Search() {
  const [query, setQuery] = useState('')
  const [refused, setRefused] = useState<string>()
  return (
    <form
      class="search"
      onSubmit={(event) => {
        event.preventDefault()
        const trimmed = query.trim()
        if (trimmed === '') return
        const target = destination(trimmed)
        if (target === undefined) {
          setRefused(trimmed)
          return
        }
        setRefused(undefined)
        // The box is for the next search: the page it led to names what was found.
        setQuery('')
        location.hash = target
      }}
    >
      <input
        data-testid="search"
        type="search"
        aria-label="Search by transaction hash, block number or address"
        aria-invalid={refused === undefined ? undefined : 'true'}
        aria-describedby={refused === undefined ? undefined : 'search-message'}
        class={refused === undefined ? '' : 'invalid'}
        placeholder="tx hash, block number or address"
        value={query}
        onInput={(event) => {
          setQuery(event.currentTarget.value)
          setRefused(undefined)
        }}
      />
      {refused !== undefined && (
        <p id="search-message" class="search-message" role="alert" data-testid="search-message">
          “{refused.length > 24 ? `${refused.slice(0, 24)}…` : refused}” is none of these. {ACCEPTED}
        </p>
      )}
    </form>
  )
}
