/**
 * The dApp's React side: wagmi's hooks, mounted as a React app mounts them. A batch goes through `useSendCalls`, the
 * hook a React dApp calls; the component hands the hook's `mutateAsync` out so that the test can drive it.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createRoot } from 'react-dom/client'
import { useEffect } from 'react'
import { WagmiProvider, useSendCalls } from 'wagmi'

import type { Config } from '@wagmi/core'

type SendCallsAsync = ReturnType<typeof useSendCalls>['mutateAsync']

function SendCallsBridge({ onReady }: { onReady: (send: SendCallsAsync) => void }) {
  const { mutateAsync } = useSendCalls()
  useEffect(() => onReady(mutateAsync), [mutateAsync, onReady])
  return null
}

/** Mounts the hooks on `config`; resolves with useSendCalls' mutateAsync once React has rendered. */
export async function mountHooks(config: Config): Promise<SendCallsAsync> {
  // The script runs from the head, before there is a body to mount in.
  if (document.readyState === 'loading') await new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }))
  const root = document.createElement('div')
  document.body.append(root)
  return new Promise((resolve) => {
    createRoot(root).render(
      <WagmiProvider config={config}>
        <QueryClientProvider client={new QueryClient()}>
          <SendCallsBridge onReady={resolve} />
        </QueryClientProvider>
      </WagmiProvider>,
    )
  })
}
