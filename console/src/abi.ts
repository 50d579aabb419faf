/**
 * The ABIs the page knows without being told: ERC-20, ERC-721 and ERC-1155 events and functions, and ERC-7821's
 * `execute`, which the wallet's atomic batches call on the account itself (EIP-7702, contracts/BatchExecutor.sol).
 * Beside them, those of the developer's own contracts, which the node read from their build output (`--abi`).
 */
import { decodeAbiParameters, decodeEventLog, decodeFunctionData, parseAbi, slice } from 'viem'

import type { Abi, AbiFunction, Hex } from 'viem'

// ERC-20 and ERC-721 share event signatures and differ only in which arguments are indexed, so each is its own ABI
// and a log is decoded by whichever its topics fit.
const eventAbis: Abi[] = [
  parseAbi([
    'event Transfer(address indexed from, address indexed to, uint256 value)',
    'event Approval(address indexed owner, address indexed spender, uint256 value)',
  ]),
  parseAbi([
    'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
    'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
    'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  ]),
  parseAbi([
    'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
    'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
    'event URI(string value, uint256 indexed id)',
  ]),
]

/** One entry per selector: where the standards share a function (approve, transferFrom), it is listed once. */
const functions = parseAbi([
  'function transfer(address to, uint256 amount)',
  'function approve(address spender, uint256 amount)',
  'function transferFrom(address from, address to, uint256 amount)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function setApprovalForAll(address operator, bool approved)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data)',
  'function execute(bytes32 mode, bytes executionData) payable',
])

/** The developer's contracts: each event alone, as two may share a signature and differ in what is indexed. */
let projectEvents: Abi[] = []
let projectFunctions: Abi = []

/** Takes the node's `flashchain_getAbi` answer: it decodes before the standards, being the contracts' own. */
export function setProjectAbi(items: Abi): void {
  projectEvents = items.filter((item) => item.type === 'event').map((item) => [item])
  projectFunctions = items.filter((item) => item.type === 'function')
}

/** The predeployed ERC-7821 executor that wallet accounts delegate to. */
export const EXECUTOR = '0x7821000000000000000000000000000000007821'

/** `amount`: the index of the argument that is an ERC-20 amount of the contract's token, if it is a token. */
export type DecodedCall = { name: string; args: { name: string; value: unknown }[]; amount?: number; inner?: InnerCall[] }
export type InnerCall = { to: Hex; value: bigint; data: Hex }

const callsParameter = [
  {
    type: 'tuple[]',
    components: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'data', type: 'bytes' },
    ],
  },
] as const

/** ERC-7821's executionData: `abi.encode(calls)`, or `abi.encode(calls, opData)` when its first word says 0x40. */
function executionCalls(data: Hex): InnerCall[] {
  const offset = data.length >= 66 ? BigInt(slice(data, 0, 32)) : 0n
  if (offset >= 0x40n) return [...decodeAbiParameters([...callsParameter, { type: 'bytes' }], data)[0]]
  return [...decodeAbiParameters(callsParameter, data)[0]]
}

/**
 * ERC-20's transfer, approve and transferFrom, whose last argument is an amount of the token. ERC-721 shares the last
 * two selectors with a token id in that place: the page reads it as an amount only where the contract has decimals().
 */
const amountSelectors = new Set(['0xa9059cbb', '0x095ea7b3', '0x23b872dd'])

/** ERC-20's Transfer and Approval, whose value is the data when two topics follow the signature (ERC-721 indexes it). */
const amountEvents = new Set([
  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
])

/** A call's function and arguments, where a known ABI has its selector; an execute also lists its calls. */
export function decodeCall(data: Hex | undefined): DecodedCall | undefined {
  if (data === undefined || data.length < 10) return undefined
  for (const abi of [projectFunctions, functions]) {
    try {
      const { functionName, args = [] } = decodeFunctionData({ abi, data })
      const inputs =
        abi.find((item): item is AbiFunction => item.type === 'function' && item.name === functionName && item.inputs.length === args.length)
          ?.inputs ?? []
      const decoded: DecodedCall = { name: functionName, args: args.map((value, i) => ({ name: inputs[i]?.name || `${i}`, value })) }
      if (amountSelectors.has(data.slice(0, 10).toLowerCase()) && args.length > 0) decoded.amount = args.length - 1
      if (abi === functions && functionName === 'execute') decoded.inner = executionCalls(args[1] as Hex)
      return decoded
    } catch {
      // Not one of this list's: try the next.
    }
  }
  return undefined
}

export type DecodedLog = { name: string; args: { name: string; value: unknown }[]; amount?: number }

export function decodeLog(log: { topics: Hex[]; data: Hex }): DecodedLog | undefined {
  const [signature, ...rest] = log.topics
  if (signature === undefined) return undefined
  for (const abi of [...projectEvents, ...eventAbis]) {
    try {
      const { eventName, args } = decodeEventLog({ abi, topics: [signature, ...rest], data: log.data, strict: true })
      const decoded: DecodedLog = { name: eventName ?? '?', args: Object.entries(args ?? {}).map(([name, value]) => ({ name, value })) }
      if (amountEvents.has(signature.toLowerCase()) && rest.length === 2 && decoded.args.length === 3) decoded.amount = 2
      return decoded
    } catch {
      // Not this standard's: try the next.
    }
  }
  return undefined
}

/** The delegate an EIP-7702 designator (0xef0100 ‖ address) names, or undefined for other code. */
export function delegateOf(code: string): Hex | undefined {
  return code.length === 48 && code.toLowerCase().startsWith('0xef0100') ? (`0x${code.slice(8)}` as Hex) : undefined
}
