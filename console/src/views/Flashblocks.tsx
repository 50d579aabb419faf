import { clock, short } from '../format.ts'
import { live } from '../live.ts'
import { useStore } from '../store.ts'
import { AddressLink, BlockLink, Section, TxLink } from '../ui.tsx'

import type { Head, TimelineBlock } from '../live.ts'

function HeadCard({ name, head }: { name: 'pending' | 'latest'; head: Head | undefined }) {
  return (
    <div class="card" data-testid={`head-${name}`} data-number={head?.number.toString()}>
      <h3>{name}</h3>
      {head === undefined ? (
        <p class="muted">…</p>
      ) : (
        <dl>
          <dt>number</dt>
          <dd>{name === 'pending' ? `#${head.number}` : <BlockLink number={head.number} />}</dd>
          <dt>hash</dt>
          {/* The pending block's hash is its newest flashblock's, which the next one replaces. */}
          <dd class="mono">{name === 'pending' || head.hash === null ? <span class="muted">not sealed</span> : short(head.hash)}</dd>
          <dt>transactions</dt>
          <dd>{head.transactions}</dd>
          <dt>gas used</dt>
          <dd>{head.gasUsed.toString()}</dd>
          <dt>timestamp</dt>
          <dd>{clock(head.timestamp)}</dd>
        </dl>
      )}
    </div>
  )
}

/** Why a flashblock's index is `?`: said on the cell (title) and once under the strip. */
const UNSEEN = "not seen: the page opened after this block's first flashblocks, so it cannot number them"

/** One block: a strip of its flashblocks as they came, then its transactions with the flashblock each landed in. */
function BlockTimeline({ block }: { block: TimelineBlock }) {
  const rows = block.flashblocks.flatMap((flashblock, position) => flashblock.transactions.map((tx) => ({ tx, flashblock, position })))
  return (
    <div class="timeline-block" data-testid="timeline-block" data-number={block.number.toString()}>
      <h3>
        Block #{block.number.toString()}{' '}
        {block.sealed === undefined ? <span class="badge building">building</span> : <span class="badge">sealed {short(block.sealed.hash)}</span>}
      </h3>
      <ol class="strip">
        {block.flashblocks.map((flashblock, position) => (
          <li
            key={position}
            class={flashblock.transactions.length > 0 ? 'filled' : ''}
            data-testid="flashblock"
            data-number={block.number.toString()}
            data-index={flashblock.index}
            title={`${flashblock.index === undefined ? `? = ${UNSEEN}; ` : ''}received ${new Date(flashblock.receivedAt).toLocaleTimeString()}`}
          >
            <span>{flashblock.index ?? '?'}</span>
            {flashblock.transactions.length > 0 && <small>+{flashblock.transactions.length}</small>}
          </li>
        ))}
      </ol>
      {block.flashblocks[0]?.index === undefined && block.flashblocks.length > 0 && (
        <p class="muted legend" data-testid="joined-halfway">
          <b>?</b> = {UNSEEN}.
        </p>
      )}
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>fb</th>
              <th>transaction</th>
              <th>from → to</th>
              <th title="from its arrival in the pool to its flashblock, as this page saw them">pre-confirmed in</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ tx, flashblock }) => (
              <tr key={tx.hash} data-testid="flash-tx" data-hash={tx.hash}>
                <td title={flashblock.index === undefined ? UNSEEN : undefined}>{flashblock.index ?? '?'}</td>
                <td>
                  <TxLink hash={tx.hash} />
                </td>
                <td>
                  <AddressLink address={tx.from} /> → <AddressLink address={tx.to} />
                </td>
                <td>{tx.preconfirmMs === undefined ? <span class="muted">—</span> : `${Math.round(tx.preconfirmMs)} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

export function Flashblocks() {
  const state = useStore(live)
  return (
    <div data-testid="view-flashblocks">
      <div class="heads">
        <HeadCard name="pending" head={state.pending} />
        <HeadCard name="latest" head={state.latest} />
      </div>
      <Section title="Timeline">
        {!state.connected && <p class="muted">connecting to the node's WebSocket…</p>}
        {state.blocks.map((block) => (
          <BlockTimeline key={block.number.toString()} block={block} />
        ))}
      </Section>
    </div>
  )
}
