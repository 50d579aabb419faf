// What the command lines (flashchain, flashchain follow) check their values with.

/** A command line that cannot start: what is wrong, and where to look, rather than the whole help. */
export function fail(message: string, help = 'flashchain --help'): never {
  process.stderr.write(`flashchain: ${message}\n${help} lists every option.\n`)
  process.exit(2)
}

export function integer(name: string, value: string | undefined, { min = 0 } = {}): number | undefined {
  if (value === undefined) return undefined
  if (!/^-?\d+$/.test(value) || Number(value) < min) fail(`--${name} must be an integer ≥ ${min}, got "${value}"`)
  return Number(value)
}

export function bigint(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined
  if (!/^(\d+|0x[0-9a-fA-F]+)$/.test(value)) fail(`--${name} must be a positive integer, got "${value}"`)
  return BigInt(value)
}

/** A comma-separated option as its items, blanks left out. */
export function list(value: string | undefined): string[] | undefined {
  return value
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
}
