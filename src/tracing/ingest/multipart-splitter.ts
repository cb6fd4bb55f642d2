/**
 * A streaming multipart/form-data splitter (pure, no I/O). Chunks go in as they arrive; whole parts
 * come out as soon as their closing delimiter is seen. Built for what ingestion needs — every part
 * collected in memory, headers reduced to name and content type — because a general parser's
 * per-part streams and header parsing cost more than the rest of ingestion for the SDKs' batches of
 * hundreds of small parts. Large parts (images) are never re-scanned or re-copied as they grow.
 */

export interface Part {
  name: string;
  contentType: string;
  /** The content type's parameters as sent (`length=1234`: example attachments declare their size so). */
  typeParams?: string;
  data: Buffer;
}

export class MultipartError extends Error {}

const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");
const MAX_HEADER_BYTES = 16 * 1024;

type State = "preamble" | "after-boundary" | "headers" | "body" | "done";

export class MultipartSplitter {
  private readonly first: Buffer; // "--boundary" (the body may start with it)
  private readonly delimiter: Buffer; // "\r\n--boundary"
  private state: State = "preamble";
  private pending: Buffer = Buffer.alloc(0);
  private bodyChunks: Buffer[] = [];
  private header: { name: string; contentType: string; typeParams?: string } = { name: "", contentType: "" };

  constructor(boundary: string) {
    if (!boundary || boundary.length > 200) throw new MultipartError("the multipart boundary is missing or too long");
    this.first = Buffer.from(`--${boundary}`);
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** The parts completed by this chunk. */
  push(chunk: Buffer): Part[] {
    const out: Part[] = [];
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    for (;;) {
      if (this.state === "preamble") {
        // The first boundary may open the body, or follow a preamble after a CRLF.
        const at = buf.indexOf(this.first);
        if (at < 0) {
          this.pending = buf.subarray(Math.max(0, buf.length - this.first.length));
          return out;
        }
        buf = buf.subarray(at + this.first.length);
        this.state = "after-boundary";
      }
      if (this.state === "after-boundary") {
        // "--" closes the body; otherwise optional whitespace, then CRLF and the next part's headers
        let i = 0;
        while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
        if (buf.length - i < 2) {
          this.pending = buf;
          return out;
        }
        if (buf[i] === 0x2d && buf[i + 1] === 0x2d) {
          this.state = "done";
          return out;
        }
        if (buf[i] !== CRLF[0] || buf[i + 1] !== CRLF[1]) throw new MultipartError("malformed multipart body: no line break after a boundary");
        buf = buf.subarray(i + 2);
        this.state = "headers";
      }
      if (this.state === "headers") {
        const end = buf.indexOf(HEADER_END);
        // a part with no headers at all starts its body right away
        const emptyHeaders = buf.length >= 2 && buf[0] === CRLF[0] && buf[1] === CRLF[1];
        if (!emptyHeaders && end < 0) {
          if (buf.length > MAX_HEADER_BYTES) throw new MultipartError("malformed multipart body: part headers too long");
          this.pending = buf;
          return out;
        }
        this.header = emptyHeaders ? { name: "", contentType: "" } : parseHeaders(buf.toString("latin1", 0, end));
        buf = buf.subarray(emptyHeaders ? 2 : end + HEADER_END.length);
        this.state = "body";
        this.bodyChunks = [];
      }
      if (this.state === "body") {
        const at = buf.indexOf(this.delimiter);
        if (at < 0) {
          // keep the tail that could be the start of a delimiter split across chunks
          const keep = Math.min(buf.length, this.delimiter.length - 1);
          if (buf.length > keep) this.bodyChunks.push(buf.subarray(0, buf.length - keep));
          this.pending = Buffer.from(buf.subarray(buf.length - keep));
          return out;
        }
        this.bodyChunks.push(buf.subarray(0, at));
        const data = this.bodyChunks.length === 1 ? this.bodyChunks[0]! : Buffer.concat(this.bodyChunks);
        out.push({ name: this.header.name, contentType: this.header.contentType, ...(this.header.typeParams ? { typeParams: this.header.typeParams } : {}), data });
        this.bodyChunks = [];
        buf = buf.subarray(at + this.delimiter.length);
        this.state = "after-boundary";
        continue;
      }
      return out; // done: an epilogue after the closing boundary is ignored
    }
  }

  /** Call at the end of the body: a body cut off before its closing boundary is an error. */
  end(): void {
    if (this.state !== "done") throw new MultipartError("malformed multipart body: it ends before its closing boundary");
  }
}

/**
 * The SDKs' own part headers, exactly: `Content-Disposition: form-data; name="<ascii name>"`, and
 * optionally `Content-Type: <type>[; <params>]` (and a `Content-Length`) after it; the parameters are kept
 * (example attachments declare `length=N` there). Read with one regex; any other
 * header block takes the general path.
 */
const SDK_HEADERS = /^Content-Disposition: form-data; name="([\x20\x21\x23-\x5b\x5d-\x7e]*)"(?:; filename="[^"\\\r\n]*")?(?:\r\nContent-Type: ([^;\r\n]*)(?:;([^\r\n]*))?)?(?:\r\nContent-Length: \d+)?$/i;

/** Name and content type from a part's header block. */
function parseHeaders(block: string): { name: string; contentType: string; typeParams?: string } {
  const sdk = SDK_HEADERS.exec(block);
  if (sdk) {
    const typeParams = sdk[3]?.trim();
    return { name: sdk[1]!, contentType: (sdk[2] ?? "").trim(), ...(typeParams ? { typeParams } : {}) };
  }
  return parseHeadersGeneral(block);
}

function parseHeadersGeneral(block: string): { name: string; contentType: string; typeParams?: string } {
  let name = "";
  let contentType = "";
  let typeParams = "";
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") {
      const m = /;\s*name\*?=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(value);
      if (m) name = m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]!;
    } else if (key === "content-type") {
      const semi = value.indexOf(";");
      contentType = (semi < 0 ? value : value.slice(0, semi)).trim();
      typeParams = semi < 0 ? "" : value.slice(semi + 1).trim();
    }
  }
  return { name: Buffer.from(name, "latin1").toString("utf8"), contentType, ...(typeParams ? { typeParams } : {}) };
}

/** The boundary parameter of a multipart Content-Type header, or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}
