import { useEffect, useRef, useState } from 'preact/hooks'

import { Ether } from '../amount.tsx'
import { live } from '../live.ts'
import { rpc } from '../rpc.ts'
import { useStore } from '../store.ts'
import { AddressLink, BlockLink, CallData, Failure, TxLink, TxStatus } from '../ui.tsx'

import type { RpcBlock, RpcTransaction, RpcTransactionReceipt } from 'viem'

/**
 * The node keeps no index of an address's transactions: the page reads the blocks themselves, newest first, this many
 * per step, and says how far back it has looked.
 */
const PAGE_BLOCKS = 100

type Row = { tx: RpcTransaction; status: string | undefined }
/** What the page has looked through: blocks `oldest`…`newest`, and the transactions from or to the address in them. */
type Scan = { rows: Row[]; newest: bigint; oldest: bigint }

const hex = (n: bigint) => `0x${n.toString(16)}`

/** The address's transactions in blocks `from` down to `to`, newest first, each with its receipt's status. */
async function scanBlocks(address: string, from: bigint, to: bigint): Promise<Row[]> {
  const numbers: bigint[] = []
  for (let n = from; n >= to; n--) numbers.push(n)
  const blocks = await Promise.all(numbers.map((n) => rpc('eth_getBlockByNumber', [hex(n), true]) as Promise<RpcBlock<'latest', true> | null>))
  const own = (tx: RpcTransaction) => tx.from.toLowerCase() === address || tx.to?.toLowerCase() === address
  const found = blocks.flatMap((block) => [...(block?.transactions ?? [])].reverse().filter(own))
  const receipts = await Promise.all(found.map((tx) => rpc('eth_getTransactionReceipt', [tx.hash]) as Promise<RpcTransactionReceipt | null>))
  return found.map((tx, i) => ({ tx, status: receipts[i]?.status }))
}

export function AddressTransactions({ address }: { address: string }) {
  const key = address.toLowerCase()
  const head = useStore(live).latest?.number
  const [scan, setScan] = useState<Scan>()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  // Steps run one after another, each from the scan the last one left, and a step of another address is dropped.
  const current = useRef<{ key: string; scan?: Scan; queue: Promise<void> }>({ key, queue: Promise.resolve() })

  function step(work: (scan: Scan | undefined) => Promise<Scan | undefined>): void {
    const owner = current.current
    setBusy(true)
    owner.queue = owner.queue
      .then(() => work(owner.scan))
      .then(
        (next) => {
          if (owner !== current.current || next === undefined) return
          owner.scan = next
          setScan(next)
          setError(undefined)
        },
        (reason: unknown) => {
          if (owner === current.current) setError(reason instanceof Error ? reason.message : String(reason))
        },
      )
      .finally(() => {
        if (owner === current.current) setBusy(false)
      })
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new address starts a new scan; step reads the current one.
  useEffect(() => {
    current.current = { key, queue: Promise.resolve() }
    setScan(undefined)
    step(async () => {
      const newest = BigInt(await rpc('eth_blockNumber'))
      const oldest = newest >= BigInt(PAGE_BLOCKS) ? newest - BigInt(PAGE_BLOCKS) + 1n : 0n
      return { rows: await scanBlocks(key, newest, oldest), newest, oldest }
    })
  }, [key])

  // Blocks sealed since: looked through as they come, above the rows already found.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the head is what moves; step reads the current scan.
  useEffect(() => {
    if (head === undefined) return
    step(async (scan) => {
      if (scan === undefined || head <= scan.newest) return undefined
      const from = scan.newest + 1n
      const rows = await scanBlocks(key, head, head - from >= BigInt(PAGE_BLOCKS) ? head - BigInt(PAGE_BLOCKS) + 1n : from)
      // A longer gap than a step starts the scan again from the head, rather than leave a hole in it.
      if (head - from >= BigInt(PAGE_BLOCKS)) return { rows, newest: head, oldest: head - BigInt(PAGE_BLOCKS) + 1n }
      return { ...scan, rows: [...rows, ...scan.rows], newest: head }
    })
  }, [head])

  const older = () =>
    step(async (scan) => {
      if (scan === undefined || scan.oldest === 0n) return undefined
      const from = scan.oldest - 1n
      const oldest = from >= BigInt(PAGE_BLOCKS) ? from - BigInt(PAGE_BLOCKS) + 1n : 0n
      return { ...scan, rows: [...scan.rows, ...(await scanBlocks(key, from, oldest))], oldest }
    })

  return (
    <div data-testid="address-transactions">
      <h3>Transactions</h3>
      <Failure error={error} />
      {scan === undefined ? (
        <p class="muted">looking through the latest {PAGE_BLOCKS} blocks…</p>
      ) : (
        <>
          <p class="muted" data-testid="address-scanned" aria-live="polite">
            {scan.rows.length === 0 ? 'No transactions from or to this address' : `${scan.rows.length} from or to this address`} in blocks #
            {scan.oldest.toString()}–#{scan.newest.toString()}
            {scan.oldest === 0n ? ', back to the first block.' : ` (the latest ${scan.newest - scan.oldest + 1n} blocks).`}
          </p>
          {scan.rows.length > 0 && (
            <table>
              <thead>
                <tr>
                  <th>transaction</th>
                  <th>block</th>
                  <th>status</th>
                  <th>from → to</th>
                  <th>value</th>
                  <th>call</th>
                </tr>
              </thead>
              <tbody>
                {scan.rows.map(({ tx, status }) => (
                  <tr key={tx.hash} data-testid="address-tx" data-hash={tx.hash}>
                    <td>
                      <TxLink hash={tx.hash} />
                    </td>
                    <td>{tx.blockNumber !== null && <BlockLink number={tx.blockNumber} />}</td>
                    <td>
                      <TxStatus status={status} />
                    </td>
                    <td>
                      {tx.from.toLowerCase() === key ? <b>this</b> : <AddressLink address={tx.from} />} →{' '}
                      {tx.to?.toLowerCase() === key ? <b>this</b> : <AddressLink address={tx.to} />}
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
          {scan.oldest > 0n && (
            <button type="button" data-testid="address-older" disabled={busy} onClick={older}>
              {busy ? 'looking…' : `Look through ${PAGE_BLOCKS} older blocks`}
            </button>
          )}
        </>
      )}
    </div>
  )
}
