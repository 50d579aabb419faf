import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DEFAULT_FIXTURES, compareResponses, listIoFiles, main, parseIoFile, runConformance, startNode, summaryLines } from './conformance.ts'

import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'

describe('parseIoFile', () => {
  it('reads the description and one exchange', () => {
    const text = [
      "// retrieves the client's current block number",
      '>> {"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}',
      '<< {"jsonrpc":"2.0","id":1,"result":"0x36"}',
      '',
    ].join('\n')
    expect(parseIoFile(text)).toEqual({
      description: ["retrieves the client's current block number"],
      speconly: false,
      exchanges: [{ request: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}', response: '{"jsonrpc":"2.0","id":1,"result":"0x36"}' }],
    })
  })

  it('marks a file speconly when a description line starts with speconly:', () => {
    const text = '// estimates a call\n// speconly: client response is only checked for schema validity.\n>> {"id":1}\n<< {"id":1,"result":"0x1"}\n'
    expect(parseIoFile(text)).toEqual({
      description: ['estimates a call', 'speconly: client response is only checked for schema validity.'],
      speconly: true,
      exchanges: [{ request: '{"id":1}', response: '{"id":1,"result":"0x1"}' }],
    })
    expect(parseIoFile('// not speconly: here\n>> {}\n<< {}').speconly).toBe(false)
  })

  it('reads several exchanges, trimming lines, skipping blanks, ignoring later comments, accepting CRLF', () => {
    const text =
      '  // two calls  \r\n\r\n  >>   {"id":1}  \r\n<<{"id":1,"result":"0x1"}\r\n// between\r\n>> {"id":2}\r\n\r\n<< {"id":2,"result":"0x2"}'
    expect(parseIoFile(text)).toEqual({
      description: ['two calls'],
      speconly: false,
      exchanges: [
        { request: '{"id":1}', response: '{"id":1,"result":"0x1"}' },
        { request: '{"id":2}', response: '{"id":2,"result":"0x2"}' },
      ],
    })
  })

  it('requires requests and responses to alternate, starting with a request', () => {
    expect(() => parseIoFile('<< {"id":1}\n>> {"id":1}')).toThrow(new Error('line 1: a response without a request before it'))
    expect(() => parseIoFile('>> {"id":1}\n>> {"id":2}\n<< {}')).toThrow(
      new Error('line 2: a request follows the request on line 1 without a response'),
    )
    expect(() => parseIoFile('>> {"id":1}\n<< {}\n<< {}')).toThrow(new Error('line 3: a response without a request before it'))
    expect(() => parseIoFile('// x\n>> {"id":1}\n<< {}\n\n>> {"id":2}\n')).toThrow(new Error('line 5: the request has no response'))
  })

  it('rejects invalid JSON, stray lines and empty files', () => {
    expect(() => parseIoFile('>> {"id":1\n<< {}')).toThrow(/^line 1: invalid JSON: /)
    expect(() => parseIoFile('>> {}\nhello\n<< {}')).toThrow(new Error('line 2: expected "//", ">>" or "<<", got "hello"'))
    expect(() => parseIoFile('// only a description\n')).toThrow(new Error('no exchanges in the file'))
  })

  it('parses every vendored fixture', () => {
    const files = listIoFiles(DEFAULT_FIXTURES)
    expect(files.length).toBe(140)
    expect(files[0]).toBe('debug_getRawBlock/get-block-n.io')
    expect(files.at(-1)).toBe('net_version/get-network-id.io')
    expect([...files].sort()).toEqual(files)
    const parsed = files.map((file) => [file, parseIoFile(readFileSync(join(DEFAULT_FIXTURES, file), 'utf8'))] as const)
    expect(parsed.filter(([, io]) => io.speconly).map(([file]) => file)).toEqual([
      'debug_traceBlockByNumber/trace-block-return-data-behavior.io',
      'debug_traceBlockByNumber/trace-block-storage-snapshot-timing.io',
      'debug_traceTransaction/trace-contract-call.io',
      'eth_createAccessList/create-al-abi-revert.io',
      'eth_createAccessList/create-al-contract.io',
      'eth_estimateGas/estimate-call-abi-error.io',
      'eth_estimateGas/estimate-failed-call.io',
      'eth_estimateGas/estimate-successful-call.io',
      'eth_estimateGas/estimate-with-eip4844.io',
      'eth_estimateGas/estimate-with-eip7702.io',
      'eth_feeHistory/fee-history.io',
    ])
    expect(parsed.filter(([, io]) => io.exchanges.length > 1).map(([file, io]) => [file, io.exchanges.length])).toEqual([
      ['debug_traceBlockByNumber/trace-block-return-data-behavior.io', 2],
      ['eth_estimateGas/estimate-with-eip7702.io', 2],
    ])
  })
})

describe('compareResponses', () => {
  const ok = { ok: true }

  it('accepts equal responses regardless of key order and number spelling', () => {
    expect(
      compareResponses({ jsonrpc: '2.0', id: 1, result: { a: [1, '0x2'], b: null } }, { result: { b: null, a: [1, '0x2'] }, id: 1, jsonrpc: '2.0' }),
    ).toEqual(ok)
    expect(compareResponses(JSON.parse('{"result":1e2}'), JSON.parse('{"result":100.0}'))).toEqual(ok)
  })

  it('deletes message only where both sides have an error object', () => {
    const expected = { jsonrpc: '2.0', id: 1, error: { code: 3, message: 'execution reverted: user error', data: '0x08c3' } }
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, error: { code: 3, message: 'reverted', data: '0x08c3' } })).toEqual(ok)
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'reverted', data: '0x08c3' } })).toEqual({
      ok: false,
      path: '$.error.code',
      expected: 3,
      actual: -32000,
    })
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, error: { code: 3, message: 'execution reverted: user error' } })).toEqual({
      ok: false,
      path: '$.error.data',
      expected: '0x08c3',
      actual: undefined,
    })
    // Expected an error, got a result: nothing is deleted.
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, result: '0x' })).toEqual({
      ok: false,
      path: '$.error',
      expected: { code: 3, message: 'execution reverted: user error', data: '0x08c3' },
      actual: undefined,
    })
    // Nested errors (e.g. per-call errors) at the same place; a `message` outside an error still counts.
    expect(
      compareResponses(
        { result: [{ status: '0x0', error: { code: -32015, message: 'out of gas' } }, { message: 'a' }] },
        { result: [{ status: '0x0', error: { code: -32015, message: 'gas exhausted' } }, { message: 'a' }] },
      ),
    ).toEqual(ok)
    expect(compareResponses({ result: { message: 'a' } }, { result: { message: 'b' } })).toEqual({
      ok: false,
      path: '$.result.message',
      expected: 'a',
      actual: 'b',
    })
    // An error on one side only keeps its message.
    expect(compareResponses({ result: [{ error: null }] }, { result: [{ error: { code: 1, message: 'x' } }] })).toEqual({
      ok: false,
      path: '$.result[0].error',
      expected: null,
      actual: { code: 1, message: 'x' },
    })
  })

  it('a receipt may carry blockTimestamp, and nothing else may', () => {
    const receipt = { transactionHash: '0x01', cumulativeGasUsed: '0x5208' }
    expect(compareResponses({ result: [receipt] }, { result: [{ ...receipt, blockTimestamp: '0x10' }] })).toEqual(ok)
    expect(compareResponses({ result: [receipt] }, { result: [{ ...receipt, blockTime: '0x10' }] })).toEqual({
      ok: false,
      path: '$.result[0].blockTime',
      expected: undefined,
      actual: '0x10',
    })
    expect(compareResponses({ result: { hash: '0x01' } }, { result: { hash: '0x01', blockTimestamp: '0x10' } })).toEqual({
      ok: false,
      path: '$.result.blockTimestamp',
      expected: undefined,
      actual: '0x10',
    })
  })

  it('fails on an extra or a missing key', () => {
    expect(compareResponses({ id: 1, result: { hash: '0x01' } }, { id: 1, result: { hash: '0x01', yParity: '0x0' } })).toEqual({
      ok: false,
      path: '$.result.yParity',
      expected: undefined,
      actual: '0x0',
    })
    expect(compareResponses({ id: 1, result: { hash: '0x01', v: '0x1' } }, { id: 1, result: { hash: '0x01' } })).toEqual({
      ok: false,
      path: '$.result.v',
      expected: '0x1',
      actual: undefined,
    })
    expect(compareResponses({ id: 1, result: null }, { id: 1, result: null, extra: true })).toEqual({
      ok: false,
      path: '$.extra',
      expected: undefined,
      actual: true,
    })
  })

  it('compares arrays in order and length', () => {
    expect(compareResponses({ result: ['0x1', '0x2'] }, { result: ['0x2', '0x1'] })).toEqual({
      ok: false,
      path: '$.result[0]',
      expected: '0x1',
      actual: '0x2',
    })
    expect(compareResponses({ result: ['0x1'] }, { result: ['0x1', '0x2'] })).toEqual({
      ok: false,
      path: '$.result[1]',
      expected: undefined,
      actual: '0x2',
    })
  })

  it('compares strings exactly: 0x0 is not 0x, hex case counts', () => {
    expect(compareResponses({ result: '0x0' }, { result: '0x' })).toEqual({ ok: false, path: '$.result', expected: '0x0', actual: '0x' })
    expect(compareResponses({ result: '0xab' }, { result: '0xAB' })).toEqual({ ok: false, path: '$.result', expected: '0xab', actual: '0xAB' })
    expect(compareResponses({ result: '0x1' }, { result: 1 })).toEqual({ ok: false, path: '$.result', expected: '0x1', actual: 1 })
    expect(compareResponses({ result: { 'odd key': 1 } }, { result: { 'odd key': 2 } })).toEqual({
      ok: false,
      path: '$.result["odd key"]',
      expected: 1,
      actual: 2,
    })
  })

  it('speconly: checks only the type of a successful result', () => {
    const speconly = { speconly: true }
    const expected = { jsonrpc: '2.0', id: 1, result: '0x5208' }
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, result: '0xb52e' }, speconly)).toEqual(ok)
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, result: '0x05208' }, speconly)).toEqual({
      ok: false,
      path: '$.result',
      expected: '0x5208',
      actual: '0x05208',
    })
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, result: 21000 }, speconly)).toEqual({
      ok: false,
      path: '$.result',
      expected: '0x5208',
      actual: 21000,
    })
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 2, result: '0x5208' }, speconly)).toEqual({
      ok: false,
      path: '$.id',
      expected: 1,
      actual: 2,
    })
    expect(compareResponses({ id: 1, result: '0x' }, { id: 1, result: '0x00ff' }, speconly)).toEqual(ok)
    expect(compareResponses({ id: 1, result: '0x' }, { id: 1, result: '0x1' }, speconly)).toEqual({
      ok: false,
      path: '$.result',
      expected: '0x',
      actual: '0x1',
    })
    expect(compareResponses({ id: 1, result: 'abc' }, { id: 1, result: 'xyz' }, speconly)).toEqual(ok)

    const feeHistory = { oldestBlock: '0x1b', reward: [['0x1', '0x1']], baseFeePerGas: ['0x3b9aca00', '0x342a385a'], gasUsedRatio: [0.00072868] }
    expect(
      compareResponses(
        { jsonrpc: '2.0', id: 1, result: feeHistory },
        { jsonrpc: '2.0', id: 1, result: { oldestBlock: '0x1c', reward: [['0x0', '0x2']], baseFeePerGas: ['0x7'], gasUsedRatio: [0, 0.5] } },
        speconly,
      ),
    ).toEqual(ok)
    expect(
      compareResponses(
        { jsonrpc: '2.0', id: 1, result: feeHistory },
        { jsonrpc: '2.0', id: 1, result: { ...feeHistory, reward: [['0x1', 1]] } },
        speconly,
      ),
    ).toEqual({ ok: false, path: '$.result.reward[0][1]', expected: '0x1', actual: 1 })
    expect(
      compareResponses({ jsonrpc: '2.0', id: 1, result: feeHistory }, { jsonrpc: '2.0', id: 1, result: { ...feeHistory, extra: [] } }, speconly),
    ).toEqual({ ok: false, path: '$.result.extra', expected: undefined, actual: [] })

    // Array elements go by index: elements of one list may differ in shape, as struct logs and hashes do.
    const hashes = [
      '0xc1d605c6612a5fe84dc95810030bfe5b1d327652b381bc695e28f50d13b2b09e',
      '0x021ae79aa8821d60291761cfe419b6cbc0ad7dd50d4aa6f14a54e5fc0d62e325',
    ]
    const steps = [{ op: 'PUSH1' }, { op: 'SSTORE', storage: {} }]
    expect(compareResponses({ id: 1, result: { hashes, steps } }, { id: 1, result: { hashes, steps } }, speconly)).toEqual(ok)
    expect(compareResponses({ id: 1, result: { hashes, steps } }, { id: 1, result: { hashes, steps: [steps[0], steps[0]] } }, speconly)).toEqual({
      ok: false,
      path: '$.result.steps[1].storage',
      expected: {},
      actual: undefined,
    })
    // Past the expected length, an element is shaped like the first.
    expect(compareResponses({ id: 1, result: hashes }, { id: 1, result: [...hashes, '0x0c1d'] }, speconly)).toEqual({
      ok: false,
      path: '$.result[2]',
      expected: hashes[0],
      actual: '0x0c1d',
    })

    // An actual error is compared exactly (message deleted), speconly or not.
    const revert = { jsonrpc: '2.0', id: 1, error: { code: 3, message: 'execution reverted', data: '0x77' } }
    expect(compareResponses(revert, { jsonrpc: '2.0', id: 1, error: { code: 3, message: 'reverted', data: '0x77' } }, speconly)).toEqual(ok)
    expect(
      compareResponses(revert, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'execution reverted', data: '0x77' } }, speconly),
    ).toEqual({
      ok: false,
      path: '$.error.code',
      expected: 3,
      actual: -32000,
    })
    expect(compareResponses(expected, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } }, speconly)).toEqual({
      ok: false,
      path: '$.result',
      expected: '0x5208',
      actual: undefined,
    })
    // Expected an error, got a result: the shape check fails on the missing error.
    expect(compareResponses(revert, { jsonrpc: '2.0', id: 1, result: '0x5208' }, speconly)).toEqual({
      ok: false,
      path: '$.error',
      expected: { code: 3, message: 'execution reverted', data: '0x77' },
      actual: undefined,
    })
  })
})

/** A JSON-RPC server answering each request from a table of request text → response text. */
async function replayServer(answers: Map<string, string>): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const answer = request.headers['content-type'] === 'application/json' ? answers.get(body) : undefined
      response.writeHead(200, { 'Content-Type': 'application/json' })
      response.end(answer ?? '{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"unknown"}}')
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

describe('runConformance', () => {
  let fixtures: { url: string; server: Server }
  const answers = new Map<string, string>()

  beforeAll(async () => {
    for (const file of listIoFiles(DEFAULT_FIXTURES)) {
      for (const { request, response } of parseIoFile(readFileSync(join(DEFAULT_FIXTURES, file), 'utf8')).exchanges) {
        answers.set(request, response)
      }
    }
    fixtures = await replayServer(answers)
  })
  afterAll(() => fixtures.server.close())

  it('passes every vendored case against a node that answers as expected', async () => {
    const lines: string[] = []
    const result = await runConformance({ fixturesDir: DEFAULT_FIXTURES, url: fixtures.url, log: (line) => lines.push(line) })
    expect(lines).toEqual([])
    expect([result.passed, result.failed]).toEqual([140, 0])
    const summary = summaryLines(result)
    expect(summary.at(-1)).toBe('140 passed, 0 failed')
    expect(summary).toContain('eth_getBlockByNumber: 10/10')
    expect(summary).toContain('eth_estimateGas: 6/6')
    expect(summary.length).toBe(32 + 1) // 32 method folders
  })

  it('reports a failing case with its file and the first difference', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'))
    try {
      mkdirSync(join(dir, 'eth_chainId'))
      mkdirSync(join(dir, 'eth_call'))
      writeFileSync(
        join(dir, 'eth_chainId/get-chain-id.io'),
        '>> {"jsonrpc":"2.0","id":1,"method":"eth_chainId"}\n<< {"jsonrpc":"2.0","id":1,"result":"0xc72dd9d5e883e"}\n',
      )
      writeFileSync(
        join(dir, 'eth_call/a.io'),
        '>> {"jsonrpc":"2.0","id":1,"method":"eth_call"}\n<< {"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x"}}\n',
      )
      writeFileSync(
        join(dir, 'eth_call/b.io'),
        '// two\n>> {"jsonrpc":"2.0","id":1,"method":"eth_call","params":[1]}\n<< {"jsonrpc":"2.0","id":1,"result":"0x"}\n>> {"jsonrpc":"2.0","id":2,"method":"eth_call"}\n<< {"jsonrpc":"2.0","id":2,"result":"0x"}\n',
      )
      writeFileSync(join(dir, 'eth_call/c.io'), '>> {"jsonrpc":"2.0","id":1,"method":"eth_call"}\n')
      writeFileSync(join(dir, 'eth_call/ignored.txt'), 'not a test')
      const node = await replayServer(
        new Map([
          ['{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', '{"jsonrpc":"2.0","id":1,"result":"0xC72DD9D5E883E"}'],
          ['{"jsonrpc":"2.0","id":1,"method":"eth_call"}', '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"reverted","data":"0x"}}'],
          ['{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[1]}', '{"jsonrpc":"2.0","id":1,"result":"0x"}'],
          ['{"jsonrpc":"2.0","id":2,"method":"eth_call"}', '{"jsonrpc":"2.0","id":2,"result":"0x0"}'],
        ]),
      )
      try {
        const lines: string[] = []
        const result = await runConformance({ fixturesDir: dir, url: node.url, log: (line) => lines.push(line) })
        expect(lines).toEqual([
          'FAIL eth_call/b.io: $.result: expected "0x", got "0x0" (exchange 2)',
          'FAIL eth_call/c.io: invalid test file: line 1: the request has no response',
          'FAIL eth_chainId/get-chain-id.io: $.result: expected "0xc72dd9d5e883e", got "0xC72DD9D5E883E"',
        ])
        expect(summaryLines(result)).toEqual(['eth_call: 1/3', 'eth_chainId: 0/1', '1 passed, 3 failed'])

        const filtered: string[] = []
        expect(await runConformance({ fixturesDir: dir, url: node.url, filter: 'a.io', log: (line) => filtered.push(line) })).toMatchObject({
          passed: 1,
          failed: 0,
        })

        const out: string[] = []
        expect(
          await main(
            ['--fixtures', dir, '--url', node.url],
            (line) => out.push(line),
            () => {},
          ),
        ).toBe(1)
        expect(out.at(-1)).toBe('1 passed, 3 failed')
        expect(
          await main(
            ['--fixtures', dir, '--url', node.url, '--filter', 'eth_call/a'],
            (line) => out.push(line),
            () => {},
          ),
        ).toBe(0)
        expect(out.slice(-2)).toEqual(['eth_call: 1/1', '1 passed, 0 failed'])
      } finally {
        node.server.close()
      }
      const down: string[] = []
      await runConformance({ fixturesDir: dir, url: 'http://127.0.0.1:9', filter: 'a.io', log: (line) => down.push(line) })
      expect(down.length).toBe(1)
      expect(down[0]).toMatch(/^FAIL eth_call\/a\.io: request failed: fetch failed/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('startNode', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'conformance-node-'))
    // A stand-in for src/cli.ts: answers every request with the arguments it was started with.
    writeFileSync(
      join(dir, 'fake-node.mjs'),
      `import { createServer } from 'node:http'
const args = process.argv.slice(2)
if (process.env.FAKE_MODE === 'fail') { process.stderr.write('boom: bad genesis\\n'); process.exit(3) }
if (process.env.FAKE_MODE === 'stubborn') process.on('SIGTERM', () => {})
process.stderr.write('starting\\n')
const server = createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: args })) })
server.listen(0, '127.0.0.1', () => process.stdout.write('flashchain ready\\nListening on http://127.0.0.1:' + server.address().port + '\\n'))
if (process.env.FAKE_MODE !== 'stubborn') process.on('SIGTERM', () => server.close(() => process.exit(0)))
`,
    )
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const withMode = async <T>(mode: string, run: () => Promise<T>): Promise<T> => {
    const before = process.env.FAKE_MODE
    process.env.FAKE_MODE = mode
    try {
      return await run()
    } finally {
      if (before === undefined) delete process.env.FAKE_MODE
      else process.env.FAKE_MODE = before
    }
  }

  it('starts the node with the fixture arguments and stops it', async () => {
    const node = await withMode('normal', () => startNode({ fixturesDir: 'fixtures-dir', cli: join(dir, 'fake-node.mjs') }))
    expect(node.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const response = (await (await fetch(node.url, { method: 'POST', body: '{}' })).json()) as { result: unknown }
    expect(response.result).toEqual([
      '--genesis',
      join('fixtures-dir', 'genesis.json'),
      '--import',
      join('fixtures-dir', 'chain.rlp'),
      '--mining',
      'manual',
      '--revert-code',
      '3',
      '--port',
      '0',
      '--ephemeral',
      '--host',
      '127.0.0.1',
    ])
    expect(node.stderr()).toBe('starting\n')
    await node.stop()
    await expect(fetch(node.url, { method: 'POST', body: '{}' })).rejects.toThrow()
    await node.stop() // idempotent
  })

  it('kills a node that ignores SIGTERM', async () => {
    const node = await withMode('stubborn', () => startNode({ fixturesDir: 'fixtures-dir', cli: join(dir, 'fake-node.mjs'), killAfterMs: 300 }))
    const started = Date.now()
    await node.stop()
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    await expect(fetch(node.url, { method: 'POST', body: '{}' })).rejects.toThrow()
  })

  it('rejects with the stderr of a node that exits before listening, or never listens', async () => {
    const failure = await withMode('fail', () =>
      startNode({ fixturesDir: 'fixtures-dir', cli: join(dir, 'fake-node.mjs') }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    )
    expect((failure as Error).message).toBe('the node exited before listening (exit code 3)')
    expect((failure as { stderr: string }).stderr).toBe('boom: bad genesis\n')

    writeFileSync(join(dir, 'silent.mjs'), 'setInterval(() => {}, 1000)\n')
    const silent = await startNode({ fixturesDir: 'fixtures-dir', cli: join(dir, 'silent.mjs'), startTimeoutMs: 300, killAfterMs: 1000 }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect((silent as Error).message).toBe('the node did not print "Listening on http://..." within 300 ms')
  })
})
