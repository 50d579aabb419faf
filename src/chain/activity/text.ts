import type { Hex } from '../../hex.ts'

/** What an ABI parameter is: its type, and the components of a tuple. */
export type ParameterShape = { type: string; name?: string; components?: readonly ParameterShape[] }

/** The longest string argument shown whole; a longer one is cut, since the line is about the call, not its text. */
const STRING_WIDTH = 24

/**
 * `0x1234…abcd` for an address or bytes longer than 8 bytes: enough to tell values apart on a line, and the full value is
 * one lookup away by the transaction's hash.
 */
export function shortHex(hex: string): string {
  return hex.length <= 18 ? hex : `${hex.slice(0, 6)}…${hex.slice(-4)}`
}

/** Wei as ether, with the unit: `1.5 ETH`. */
export function formatEther(wei: bigint): string {
  const whole = wei / 10n ** 18n
  const fraction = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '')
  return `${whole}${fraction === '' ? '' : `.${fraction}`} ETH`
}

/** One decoded ABI value as short text: addresses and long bytes shortened, strings quoted and cut, tuples and arrays spelled out. */
export function formatValue(parameter: ParameterShape, value: unknown): string {
  const { type } = parameter
  if (type.endsWith(']')) {
    const element = { ...parameter, type: type.slice(0, type.lastIndexOf('[')) }
    return `[${(value as readonly unknown[]).map((item) => formatValue(element, item)).join(', ')}]`
  }
  if (type === 'tuple') {
    const components = parameter.components ?? []
    const fields = components.map((component, i) =>
      formatValue(component, Array.isArray(value) ? value[i] : (value as Record<string, unknown>)[component.name ?? '']),
    )
    return `(${fields.join(', ')})`
  }
  if (type === 'address') return shortHex((value as Hex).toLowerCase())
  if (type === 'string') {
    const text = value as string
    return JSON.stringify(text.length <= STRING_WIDTH ? text : `${text.slice(0, STRING_WIDTH)}…`)
  }
  if (type.startsWith('bytes')) return shortHex(value as Hex)
  return String(value)
}

/** Each argument as short text. */
export function formatArguments(parameters: readonly ParameterShape[], values: readonly unknown[]): string[] {
  return parameters.map((parameter, i) => formatValue(parameter, values[i]))
}

/**
 * `name(a, b)`, within `width` columns where it can: arguments that do not fit are left out whole (a number cut in
 * the middle would read as another number), down to `name(…)`.
 */
export function formatCall(name: string, args: readonly string[], width = Number.POSITIVE_INFINITY): string {
  const whole = `${name}(${args.join(', ')})`
  if (whole.length <= width) return whole
  for (let kept = args.length - 1; kept > 0; kept--) {
    const cut = `${name}(${args.slice(0, kept).join(', ')}, …)`
    if (cut.length <= width) return cut
  }
  return `${name}(…)`
}
