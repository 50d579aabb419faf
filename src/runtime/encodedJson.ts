/**
 * An answer already encoded as JSON text where it was made (an execution worker makes a trace's). The dispatcher
 * writes the text into the response as it is (encodeResponse), so the main thread neither copies a tree of objects
 * from the worker nor encodes it again. Anything that encodes it with JSON.stringify still gets the same JSON, by
 * parsing it back: slower, never different.
 */
export class EncodedJson {
  readonly text: string

  constructor(text: string) {
    this.text = text
  }

  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}
