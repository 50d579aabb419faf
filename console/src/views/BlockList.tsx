import { clock, short } from '../format.ts'
import { live } from '../live.ts'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { createStore, useStore } from '../store.ts'
import { BlockLink, Failure, Section } from '../ui.tsx'

import type { RpcBlock } from 'viem'

type Header = RpcBlock<'latest', false>

/** Blocks on a page of the list. */
const PAGE = 15
/** Blocks asked for in one request while looking for ones with transactions. */
const CHUNK = 50
/** How far one page looks back for blocks with transactions, so that a long run of empty blocks cannot hold it up. */
const SCAN_LIMIT = 500

/** Whether the list leaves out empty blocks: the page remembers it while it stays open. */
const hideEmpty = createStore(false)

const hex = (n: bigint) => `0x${n.toString(16)}`

function loadBlocks(from: bigint, count: number): Promise<Header[]> {
  const numbers: bigint[] = []
  for (let n = from; n >= 0n && numbers.length < count; n--) numbers.push(n)
  return Promise.all(numbers.map((n) => rpc('eth_getBlockByNumber', [hex(n), false]) as Promise<Header>))
}

type Listing = { blocks: Header[]; top: bigint; lowest: bigint }

/** From `top` down: PAGE blocks, or with `nonEmpty`, up to PAGE blocks with transactions within SCAN_LIMIT blocks. */
async function list(top: bigint, nonEmpty: boolean): Promise<Listing> {
  if (!nonEmpty) {
    const blocks = await loadBlocks(top, PAGE)
    return { blocks, top, lowest: top - BigInt(blocks.length) + 1n }
  }
  const found: Header[] = []
  let next = top
  while (found.length < PAGE && next >= 0n && top - next < BigInt(SCAN_LIMIT)) {
    const chunk = await loadBlocks(next, Math.min(CHUNK, Number(BigInt(SCAN_LIMIT) - (top - next))))
    for (const block of chunk) {
      if (found.length < PAGE) next = BigInt(block.number) - 1n
      if (block.transactions.length > 0 && found.length < PAGE) found.push(block)
    }
  }
  return { blocks: found, top, lowest: next + 1n }
}

/** `#/blocks` follows the head; `#/blocks/N` is the page that starts at block N and stays there. */
export function RecentBlocks({ from }: { from?: string }) {
  const head = useStore(live).latest?.number
  const nonEmpty = useStore(hideEmpty)
  const start = from !== undefined && /^\d+$/.test(from) ? BigInt(from) : undefined
  const listing = useQuery(async () => {
    const newest = head ?? BigInt(await rpc('eth_blockNumber'))
    return list(start !== undefined && start < newest ? start : newest, nonEmpty)
  }, [start === undefined ? head : start, nonEmpty])
  const data = listing.data
  const newer = data === undefined || head === undefined || data.top >= head ? undefined : data.top + BigInt(PAGE)
  return (
    <Section title="Blocks" testid="recent-blocks">
      <div class="row">
        <label>
          <input type="checkbox" data-testid="hide-empty" checked={nonEmpty} onChange={(event) => hideEmpty.set(event.currentTarget.checked)} /> hide
          empty blocks
        </label>
        {data && (
          <span class="muted" data-testid="blocks-range">
            blocks #{data.lowest.toString()}–#{data.top.toString()}
            {nonEmpty && `: ${data.blocks.length} with transactions, ${Number(data.top - data.lowest) + 1 - data.blocks.length} empty hidden`}
          </span>
        )}
      </div>
      <Failure error={listing.error} />
      <table>
        <thead>
          <tr>
            <th>block</th>
            <th>hash</th>
            <th>time</th>
            <th>transactions</th>
            <th>gas used</th>
          </tr>
        </thead>
        <tbody>
          {data?.blocks.map((block) => (
            <tr key={block.hash} data-testid="block-row" data-number={BigInt(block.number).toString()}>
              <td>
                <BlockLink number={block.number} />
              </td>
              <td class="mono" title={block.hash ?? undefined}>
                {short(block.hash)}
              </td>
              <td>{clock(block.timestamp)}</td>
              <td>{block.transactions.length}</td>
              <td>{BigInt(block.gasUsed).toString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && nonEmpty && data.blocks.length === 0 && <p class="muted">no block with transactions among these</p>}
      <nav class="pager" aria-label="pages of blocks">
        {start !== undefined && (
          <a href="#/blocks" data-testid="blocks-newest">
            « newest
          </a>
        )}
        {newer !== undefined && !nonEmpty && (
          <a href={head !== undefined && newer >= head ? '#/blocks' : `#/blocks/${newer}`} data-testid="blocks-newer" rel="prev">
            ‹ newer
          </a>
        )}
        {data !== undefined && data.lowest > 0n && (
          <a href={`#/blocks/${data.lowest - 1n}`} data-testid="blocks-older" rel="next">
            older ›
          </a>
        )}
      </nav>
    </Section>
  )
}
