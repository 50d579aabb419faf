/**
 * An answer already encoded as JSON text, in UTF-8, where it was made: an execution worker makes a trace's, and
 * eth_call's return data is written straight into hex. The dispatcher copies the bytes into the response as they
 * are (encodeResponse), so the main thread neither copies a tree of objects from the worker nor scans and encodes a
 * string of megabytes again. Anything that encodes it with JSON.stringify still gets the same JSON, by parsing it
 * back: slower, never different.
 */
export class EncodedJson {
  readonly bytes: Uint8Array

  constructor(bytes: Uint8Array) {
    this.bytes = bytes
  }

  /** A short JSON text of the caller's (`[]`). */
  static of(text: string): EncodedJson {
    return new EncodedJson(Buffer.from(text))
  }

  /**
   * Bytes as the JSON string of their hex, `"0x…"`, through Node's native encoder: a 3 MB eth_call answer costs the
   * main thread a few milliseconds this way, against tens through JSON.stringify of the hex string.
   */
  static hex(bytes: Uint8Array): EncodedJson {
    return new EncodedJson(encodedHex.get(bytes) ?? hexJson(bytes))
  }

  /** The value, decoded: for a caller in this process, or anything that encodes it again. */
  toJSON(): unknown {
    return JSON.parse(Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('utf8'))
  }
}

/**
 * Answers from this size on are encoded where they are made and written into the response as bytes: below it,
 * JSON.stringify costs less than the bookkeeping.
 */
export const LARGE_ANSWER_BYTES = 64 * 1024

/** The JSON string of bytes' hex, `"0x…"`, in UTF-8, in a buffer of its own (which a worker can hand over). */
export function hexJson(bytes: Uint8Array): Uint8Array {
  const json = new Uint8Array(bytes.byteLength * 2 + 4)
  const view = Buffer.from(json.buffer, json.byteOffset, json.byteLength)
  view.write('"0x', 0, 'latin1')
  view.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'), 3, 'latin1')
  json[json.length - 1] = 0x22
  return json
}

/** hexJson of return data, made by the execution worker that ran the call, kept beside the bytes it encodes. */
const encodedHex = new WeakMap<Uint8Array, Uint8Array>()

/** Keeps `json`, which a worker made from `bytes` with hexJson, for EncodedJson.hex to use instead of encoding again. */
export function rememberHexJson(bytes: Uint8Array, json: Uint8Array): void {
  encodedHex.set(bytes, json)
}
