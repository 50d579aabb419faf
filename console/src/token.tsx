import { useState } from 'preact/hooks'

import { dismissTokenPrompt, saveToken, tokenPrompt } from './rpc.ts'
import { useStore } from './store.ts'

/**
 * On a non-loopback bind the node wants the wallet token (--wallet-token) from the owner. The page asks once and
 * keeps it for the session (sessionStorage): it is gone when the tab closes.
 */
export function TokenPrompt() {
  const state = useStore(tokenPrompt)
  const [token, setToken] = useState('')
  if (state === 'hidden') return null
  return (
    <div class="overlay">
      <form
        class="dialog"
        data-testid="token-prompt"
        onSubmit={(event) => {
          event.preventDefault()
          if (token !== '') saveToken(token)
        }}
      >
        <h2>Wallet token</h2>
        <p>
          {state === 'rejected'
            ? 'The node did not accept that token.'
            : 'This node is not bound to a loopback address: its wallet and admin methods want the token it was started with (--wallet-token).'}
        </p>
        <input data-testid="token-input" type="password" value={token} onInput={(event) => setToken(event.currentTarget.value)} />
        <div class="row">
          <button type="submit" data-testid="token-submit">
            Use token
          </button>
          <button type="button" onClick={dismissTokenPrompt}>
            Not now
          </button>
        </div>
      </form>
    </div>
  )
}
