/** 0x-prefixed hex: an address, a hash or a byte string, lowercase unless a checksum is meant. */
export type Hex = `0x${string}`

/** A JSON-RPC quantity: hex without leading zeros, `0x0` for zero (execution-apis' `uint`). */
export const toQuantity = (value: bigint | number): Hex => `0x${value.toString(16)}`

/** Bytes as hex, through Node's native encoder. */
export function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`
}

/** Hex of whole bytes, as a schema has validated it, decoded into an array of its own. */
export function hexToBytes(hex: Hex): Uint8Array {
  return new Uint8Array(Buffer.from(hex.slice(2), 'hex'))
}
