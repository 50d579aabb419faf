import { clock, short } from '../format.ts'
import { live } from '../live.ts'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { useStore } from '../store.ts'
import { AddressLink, BlockLink, CallData, Failure, Section, TxLink } from '../ui.tsx'

import type { RpcBlock } from 'viem'

// The node declares its blocks only as JSON objects (src/rpc/format.ts): the page reads them through viem's wire type.
type Block<Full extends boolean> = RpcBlock<'latest', Full>

const RECENT = 15

export function RecentBlocks() {
  const head = useStore(live).latest?.number
  const blocks = useQuery(async () => {
    const newest = head ?? BigInt(await rpc('eth_blockNumber'))
    const numbers: bigint[] = []
    for (let n = newest; n >= 0n && numbers.length < RECENT; n--) numbers.push(n)
    return Promise.all(numbers.map((n) => rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]) as Promise<Block<false>>))
  }, [head])
  return (
    <Section title="Recent blocks" testid="recent-blocks">
      <Failure error={blocks.error} />
      <table>
        <thead>
          <tr>
            <th>block</th>
            <th>hash</th>
            <th>time</th>
            <th>txs</th>
            <th>gas used</th>
          </tr>
        </thead>
        <tbody>
          {blocks.data?.map((block) => (
            <tr key={block.hash} data-testid="block-row" data-number={BigInt(block.number).toString()}>
              <td>
                <BlockLink number={block.number} />
              </td>
              <td class="mono">{short(block.hash)}</td>
              <td>{clock(block.timestamp)}</td>
              <td>{block.transactions.length}</td>
              <td>{BigInt(block.gasUsed).toString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}

export function BlockDetail({ number }: { number: string }) {
  const block = useQuery(
    () => rpc('eth_getBlockByNumber', [number === 'pending' ? number : `0x${BigInt(number).toString(16)}`, true]) as Promise<Block<true> | null>,
    [number],
  )
  const data = block.data
  return (
    <Section title={`Block ${number === 'pending' ? 'pending' : `#${number}`}`} testid="block-detail">
      <Failure error={block.error} />
      {data === null && <p class="muted">no such block</p>}
      {data && (
        <>
          <dl class="fields">
            <dt>hash</dt>
            <dd class="mono">{number === 'pending' || data.hash === null ? 'not sealed' : data.hash}</dd>
            <dt>time</dt>
            <dd>{clock(data.timestamp)}</dd>
            <dt>gas</dt>
            <dd>
              {BigInt(data.gasUsed).toString()} / {BigInt(data.gasLimit).toString()}
            </dd>
            <dt>base fee</dt>
            <dd>{data.baseFeePerGas ? `${BigInt(data.baseFeePerGas)} wei` : '—'}</dd>
            <dt>fee recipient</dt>
            <dd>
              <AddressLink address={data.miner} />
            </dd>
          </dl>
          <table>
            <thead>
              <tr>
                <th>transaction</th>
                <th>from → to</th>
                <th>call</th>
              </tr>
            </thead>
            <tbody>
              {data.transactions.map((tx) => (
                <tr key={tx.hash}>
                  <td>
                    <TxLink hash={tx.hash} />
                  </td>
                  <td>
                    <AddressLink address={tx.from} /> → <AddressLink address={tx.to} />
                  </td>
                  <td>
                    <CallData data={tx.input} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Section>
  )
}
