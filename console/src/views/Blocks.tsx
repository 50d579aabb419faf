import { Ether, Gwei } from '../amount.tsx'
import { clock } from '../format.ts'
import { live } from '../live.ts'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { useStore } from '../store.ts'
import { AddressLink, CallData, Failure, Section, TxLink, TxStatus } from '../ui.tsx'

import type { RpcBlock, RpcTransactionReceipt } from 'viem'

// The node declares its blocks and receipts only as JSON objects (src/rpc/format.ts): the page reads them through
// viem's wire types.
type Block = RpcBlock<'latest', true>

/** A block by number, or `latest` or `pending`: the block's own number names it once loaded. */
async function loadBlock(id: string) {
  const tag = /^\d+$/.test(id) ? `0x${BigInt(id).toString(16)}` : id
  const [block, receipts] = await Promise.all([
    rpc('eth_getBlockByNumber', [tag, true]) as Promise<Block | null>,
    rpc('eth_getBlockReceipts', [tag]) as Promise<RpcTransactionReceipt[] | null>,
  ])
  const statuses = new Map((receipts ?? []).map((receipt) => [receipt.transactionHash, receipt.status]))
  return { block, statuses }
}

/** The blocks either side: the one before, and the one after up to the head, then the block being built. */
function Neighbours({ number, pending }: { number: bigint; pending: boolean }) {
  const head = useStore(live).latest?.number
  const next = pending ? undefined : head !== undefined && number >= head ? 'pending' : (number + 1n).toString()
  return (
    <nav class="pager" aria-label="neighbouring blocks">
      {number > 0n && (
        <a href={`#/block/${number - 1n}`} data-testid="block-previous" rel="prev">
          ‹ #{(number - 1n).toString()}
        </a>
      )}
      {next !== undefined && (
        <a href={`#/block/${next}`} data-testid="block-next" rel="next">
          {next === 'pending' ? 'pending' : `#${next}`} ›
        </a>
      )}
    </nav>
  )
}

export function BlockDetail({ id }: { id: string }) {
  const found = useQuery(() => loadBlock(id), [id])
  const block = found.data?.block
  const statuses = found.data?.statuses
  const pending = id === 'pending'
  const title = block ? `Block #${BigInt(block.number)}${pending ? ' (pending)' : ''}` : `Block ${/^\d+$/.test(id) ? `#${id}` : id}`
  return (
    <Section title={title} testid="block-detail">
      <Failure error={found.error} />
      {block === null && <p class="muted">no such block</p>}
      {block && (
        <>
          <Neighbours number={BigInt(block.number)} pending={pending} />
          <dl class="fields">
            <dt>hash</dt>
            <dd class="mono">{pending || block.hash === null ? 'not sealed' : block.hash}</dd>
            <dt>time</dt>
            <dd>{clock(block.timestamp)}</dd>
            <dt>gas</dt>
            <dd>
              {BigInt(block.gasUsed).toString()} / {BigInt(block.gasLimit).toString()}
            </dd>
            <dt>base fee</dt>
            <dd data-testid="base-fee">{block.baseFeePerGas ? <Gwei wei={block.baseFeePerGas} /> : '—'}</dd>
            <dt>fee recipient</dt>
            <dd>
              <AddressLink address={block.miner} />
            </dd>
          </dl>
          {block.transactions.length === 0 ? (
            <p class="muted">no transactions</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>transaction</th>
                  <th>status</th>
                  <th>from → to</th>
                  <th>value</th>
                  <th>call</th>
                </tr>
              </thead>
              <tbody>
                {block.transactions.map((tx) => (
                  <tr key={tx.hash} data-testid="block-tx" data-hash={tx.hash}>
                    <td>
                      <TxLink hash={tx.hash} />
                    </td>
                    <td>
                      <TxStatus status={statuses?.get(tx.hash)} />
                    </td>
                    <td>
                      <AddressLink address={tx.from} /> → <AddressLink address={tx.to} />
                    </td>
                    <td>
                      <Ether wei={tx.value} />
                    </td>
                    <td>
                      <CallData data={tx.input} to={tx.to} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </Section>
  )
}
