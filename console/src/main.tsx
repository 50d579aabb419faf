import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'

import { setProjectAbi } from './abi.ts'
import { connectLive, live } from './live.ts'
import { authEpoch, rpc } from './rpc.ts'
import { useStore } from './store.ts'
import { TokenPrompt } from './token.tsx'
import { Accounts } from './views/Accounts.tsx'
import { AddressDetail } from './views/Address.tsx'
import { BlockDetail, RecentBlocks } from './views/Blocks.tsx'
import { Dev } from './views/Dev.tsx'
import { Flashblocks } from './views/Flashblocks.tsx'
import { TransactionDetail } from './views/Transaction.tsx'
import { Wallet } from './views/Wallet.tsx'

import type { Abi, Hex } from 'viem'

const tabs = [
  ['flashblocks', 'Flashblocks'],
  ['blocks', 'Blocks & transactions'],
  ['accounts', 'Accounts'],
  ['wallet', 'Wallet'],
  ['dev', 'Dev actions'],
] as const

const readRoute = () => location.hash.replace(/^#\/?/, '').split('/')

/** The route is the location's hash (`#/tx/0x…`), so every view has an address and the back button works. */
function useRoute(): string[] {
  const [route, setRoute] = useState(readRoute)
  useEffect(() => {
    const onChange = () => setRoute(readRoute())
    addEventListener('hashchange', onChange)
    return () => removeEventListener('hashchange', onChange)
  }, [])
  return route
}

/** A search's destination: a 32-byte hash is a transaction, 20 bytes an account, a number a block. */
function destination(query: string): string | undefined {
  if (/^0x[0-9a-fA-F]{64}$/.test(query)) return `#/tx/${query}`
  if (/^0x[0-9a-fA-F]{40}$/.test(query)) return `#/address/${query}`
  if (/^\d+$/.test(query) || /^0x[0-9a-fA-F]{1,16}$/.test(query)) return `#/block/${BigInt(query)}`
  if (query === 'pending' || query === 'latest') return `#/block/${query}`
  return undefined
}

function Search() {
  const [query, setQuery] = useState('')
  const [invalid, setInvalid] = useState(false)
  return (
    <form
      class="search"
      onSubmit={(event) => {
        event.preventDefault()
        const target = destination(query.trim())
        setInvalid(target === undefined)
        if (target !== undefined) location.hash = target
      }}
    >
      <input
        data-testid="search"
        class={invalid ? 'invalid' : ''}
        placeholder="tx hash, block number or address"
        value={query}
        onInput={(event) => setQuery(event.currentTarget.value)}
      />
    </form>
  )
}

function Page({ route }: { route: string[] }) {
  const [view, arg] = route
  switch (view) {
    case 'tx':
      return <TransactionDetail hash={arg as Hex} />
    case 'block':
      return <BlockDetail number={arg ?? 'latest'} />
    case 'address':
      return <AddressDetail address={arg as Hex} />
    case 'blocks':
      return <RecentBlocks />
    case 'accounts':
      return <Accounts />
    case 'wallet':
      return <Wallet />
    case 'dev':
      return <Dev />
    default:
      return <Flashblocks />
  }
}

/** Which tab a route belongs to: the explorer's detail pages sit under Blocks & transactions. */
function tabOf(view: string | undefined): string {
  if (view === 'tx' || view === 'block' || view === 'address') return 'blocks'
  return tabs.some(([id]) => id === view) ? view! : 'flashblocks'
}

function App() {
  const route = useRoute()
  const { connected } = useStore(live)
  const active = tabOf(route[0])
  return (
    <>
      <header>
        <h1>flashchain</h1>
        <nav>
          {tabs.map(([id, label]) => (
            <a key={id} href={`#/${id}`} class={id === active ? 'active' : ''} data-testid={`tab-${id}`}>
              {label}
            </a>
          ))}
        </nav>
        <Search />
        <span class={connected ? 'live on' : 'live'} data-testid="live" title="the WebSocket the page follows the chain on">
          {connected ? 'live' : 'offline'}
        </span>
      </header>
      <main>
        <Page route={route} />
      </main>
      <TokenPrompt />
    </>
  )
}

connectLive()
// The developer's ABIs, read at load and again once a token is given. Being an owner-only read, it also tells at
// once whether the node wants the wallet token from this page (eth_accounts answers such a caller with no accounts
// rather than an error). The node's ABI items are solc's JSON, which viem's Abi types item by item.
const loadProjectAbi = () =>
  rpc('flashchain_getAbi').then(
    (abi) => setProjectAbi(abi as Abi),
    () => {},
  )
loadProjectAbi()
authEpoch.subscribe(loadProjectAbi)
render(<App />, document.getElementById('app')!)
