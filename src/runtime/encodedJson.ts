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
    const json = Buffer.allocUnsafe(bytes.byteLength * 2 + 4)
    json.write('"0x', 0, 'latin1')
    json.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'), 3, 'latin1')
    json[json.length - 1] = 0x22
    return new EncodedJson(json)
  }

  /** The value, decoded: for a caller in this process, or anything that encodes it again. */
  toJSON(): unknown {
    return JSON.parse(Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('utf8'))
  }
}
