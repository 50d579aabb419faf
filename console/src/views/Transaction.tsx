import { decodeLog } from '../abi.ts'
import { Ether } from '../amount.tsx'
import { useQuery } from '../query.ts'
import { rpc } from '../rpc.ts'
import { AddressLink, BlockLink, CallData, Decoded, Failure, Section, TxStatus } from '../ui.tsx'

import type { Hex, RpcTransaction, RpcTransactionReceipt } from 'viem'

/** geth's callTracer frame (docs/tracing.md): the node types a trace only as JSON, whichever tracer made it. */
type Frame = { type: string; from: Hex; to?: Hex; value?: Hex; gasUsed: Hex; input: Hex; error?: string; revertReason?: string; calls?: Frame[] }

function TraceFrame({ frame }: { frame: Frame }) {
  return (
    <li data-testid="trace-frame">
      <span class={`badge ${frame.error === undefined ? '' : 'failed'}`}>{frame.type}</span> <AddressLink address={frame.to} />{' '}
      {frame.value !== undefined && BigInt(frame.value) > 0n && (
        <>
          <Ether wei={frame.value} />{' '}
        </>
      )}
      {/* An execute's calls are this frame's children below: listing them twice would only confuse. */}
      <CallData data={frame.input} to={frame.to} inner={false} /> <span class="muted">gas {BigInt(frame.gasUsed).toString()}</span>
      {frame.error !== undefined && <span class="error-inline"> {frame.revertReason ?? frame.error}</span>}
      {frame.calls !== undefined && (
        <ul>
          {frame.calls.map((call, i) => (
            <TraceFrame key={i} frame={call} />
          ))}
        </ul>
      )}
    </li>
  )
}

export function TransactionDetail({ hash }: { hash: Hex }) {
  const found = useQuery(async () => {
    const [found, given, latest] = await Promise.all([
      rpc('eth_getTransactionByHash', [hash]),
      rpc('eth_getTransactionReceipt', [hash]),
      rpc('eth_blockNumber'),
    ])
    // The node declares transactions and receipts only as JSON objects (src/rpc/format.ts): the page reads them
    // through viem's wire types.
    const tx = found as RpcTransaction | null
    const receipt = given as RpcTransactionReceipt | null
    // A pre-confirmed receipt carries its block's hash as built so far: its block is the one after the head.
    return { tx, receipt, preconfirmed: receipt !== null && BigInt(receipt.blockNumber) > BigInt(latest) }
  }, [hash])
  // Tracing is a separate request: a transaction still in the pool has none, and a failure here hides nothing else.
  const trace = useQuery(() => rpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }]) as Promise<Frame>, [hash])
  const { tx, receipt, preconfirmed } = found.data ?? {}
  return (
    <Section title="Transaction" testid="tx-detail">
      <Failure error={found.error} />
      {found.data !== undefined && tx === null && <p class="muted">no transaction {hash}</p>}
      {tx && (
        <dl class="fields">
          <dt>hash</dt>
          <dd class="mono">{tx.hash}</dd>
          <dt>from → to</dt>
          <dd>
            <AddressLink address={tx.from} /> → <AddressLink address={tx.to ?? receipt?.contractAddress} />
            {tx.to === null && <span class="muted"> (created)</span>}
          </dd>
          <dt>value</dt>
          <dd data-testid="tx-value">
            <Ether wei={tx.value} />
          </dd>
          <dt>nonce, type</dt>
          <dd>
            {BigInt(tx.nonce).toString()}, {BigInt(tx.type).toString()}
          </dd>
          <dt>call</dt>
          <dd>
            <CallData data={tx.input} to={tx.to} />
          </dd>
          <dt>status</dt>
          <dd data-testid="tx-status">
            {receipt === null || receipt === undefined ? (
              <span class="muted">in the pool</span>
            ) : (
              <>
                <TxStatus status={receipt.status} /> in <BlockLink number={receipt.blockNumber} />
                {preconfirmed === true && <span class="badge building">pre-confirmed</span>}, gas used {BigInt(receipt.gasUsed).toString()}
              </>
            )}
          </dd>
          {receipt && <Fee receipt={receipt as RollupReceipt} />}
        </dl>
      )}
      {receipt && receipt.logs.length > 0 && (
        <>
          <h3>Logs</h3>
          <table>
            <tbody>
              {receipt.logs.map((log) => {
                const decoded = decodeLog(log)
                return (
                  <tr key={log.logIndex} data-testid="log-row">
                    <td>{BigInt(log.logIndex ?? 0).toString()}</td>
                    <td>
                      <AddressLink address={log.address} />
                    </td>
                    <td>
                      {decoded === undefined ? (
                        <span class="mono muted">{log.topics[0] ?? 'anonymous'}</span>
                      ) : (
                        <Decoded decoded={decoded} contract={log.address} />
                      )}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </>
      )}
      <h3>Call trace</h3>
      {trace.error !== undefined ? (
        <p class="muted">no trace: {trace.error}</p>
      ) : trace.data === undefined ? (
        <p class="muted">…</p>
      ) : (
        <ul class="trace" data-testid="trace">
          <TraceFrame frame={trace.data} />
        </ul>
      )}
    </Section>
  )
}

/** A receipt as an OP Stack chain answers it: with the L1 data fee, and the operator fee's parameters when set. */
type RollupReceipt = RpcTransactionReceipt & { l1Fee?: Hex; operatorFeeScalar?: Hex; operatorFeeConstant?: Hex }

/**
 * What the transaction paid: gas used times its price, and on an OP Stack chain the L1 data fee beside it (and the
 * operator fee, Jovian's gas × scalar × 100 + constant), as a wallet on Base shows the two parts.
 */
function Fee({ receipt }: { receipt: RollupReceipt }) {
  const l2 = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
  if (receipt.l1Fee === undefined) {
    return (
      <>
        <dt>fee</dt>
        <dd data-testid="tx-fee">
          <Ether wei={l2} />
        </dd>
      </>
    )
  }
  const operator = BigInt(receipt.gasUsed) * BigInt(receipt.operatorFeeScalar ?? '0x0') * 100n + BigInt(receipt.operatorFeeConstant ?? '0x0')
  return (
    <>
      <dt>fee</dt>
      <dd data-testid="tx-fee">
        <Ether wei={l2 + BigInt(receipt.l1Fee) + operator} />
        <span class="muted">
          {' '}
          = L2 gas <Ether wei={l2} /> + L1 data{' '}
          <span data-testid="tx-l1-fee">
            <Ether wei={receipt.l1Fee} />
          </span>
          {operator > 0n && (
            <>
              {' '}
              + operator <Ether wei={operator} />
            </>
          )}
        </span>
      </dd>
    </>
  )
}
