/** 0x-prefixed hex: an address, a hash or a byte string, lowercase unless a checksum is meant. */
export type Hex = `0x${string}`

/** A JSON-RPC quantity: hex without leading zeros, `0x0` for zero (execution-apis' `uint`). */
export const toQuantity = (value: bigint | number): Hex => `0x${value.toString(16)}`
