import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'

import { setProjectAbi } from './abi.ts'
import { connectLive, live } from './live.ts'
import { authEpoch, rpc } from './rpc.ts'
import { Search } from './search.tsx'
import { useStore } from './store.ts'
import { TokenPrompt } from './token.tsx'
import { Accounts } from './views/Accounts.tsx'
import { AddressDetail } from './views/Address.tsx'
import { RecentBlocks } from './views/BlockList.tsx'
import { BlockDetail } from './views/Blocks.tsx'
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

function Page({ route }: { route: string[] }) {
  const [view, arg] = route
  switch (view) {
    case 'tx':
      return <TransactionDetail hash={arg as Hex} />
    case 'block':
      return <BlockDetail id={arg ?? 'latest'} />
    case 'address':
      return <AddressDetail address={arg as Hex} />
    case 'blocks':
      return <RecentBlocks from={arg} />
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

/**
 * Which tab a route belongs to: a block and a transaction sit under Blocks & transactions. An address belongs to none,
 * being a wallet account or any other.
 */
function tabOf(view: string | undefined): string | undefined {
  if (view === 'tx' || view === 'block') return 'blocks'
  if (view === 'address') return undefined
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
        <nav aria-label="views">
          {tabs.map(([id, label]) => (
            <a
              key={id}
              href={`#/${id}`}
              class={id === active ? 'active' : ''}
              aria-current={id === active ? 'page' : undefined}
              data-testid={`tab-${id}`}
            >
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
