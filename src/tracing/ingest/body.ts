/**
 * Request bodies of the ingest endpoints: decompression (gzip / deflate; what `/info` advertises)
 * and the uncompressed size limit, so a huge upload is refused early.
 */
import type { Request } from "express";
import zlib from "node:zlib";
import { ApiError } from "../../shared/errors.js";

export class PayloadTooLargeError extends ApiError {
  constructor(limit: number) {
    // The rest of the body is never read: the connection cannot carry another request.
    super(413, `the request body is larger than the limit of ${limit} bytes (uncompressed); send smaller batches`, { Connection: "close" });
  }
}

const DECOMPRESS = { gzip: zlib.gunzip, "x-gzip": zlib.gunzip, deflate: zlib.inflate, br: zlib.brotliDecompress } as const;
const DECOMPRESS_SYNC = { gzip: zlib.gunzipSync, "x-gzip": zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync } as const;
/**
 * Compressed bodies up to SYNC_MAX_IN bytes that inflate to at most SYNC_MAX_OUT are inflated on the
 * event loop (about a millisecond at most); anything larger on the thread pool, where a slow
 * inflate holds up no other request. The body limit holds either way.
 */
const SYNC_MAX_IN = 64 * 1024;
const SYNC_MAX_OUT = 2 * 1024 * 1024;

/**
 * The request body, decompressed, failing with 413 past `limit` bytes. A plain body streams as it
 * arrives (a large upload is split as it comes); a compressed one is read whole (at most `limit`
 * bytes as sent) and decompressed in one call: streaming decompression costs a callback, a buffer
 * and a stream hop per 16 KB chunk on the event loop, which was a tenth of the ingest's CPU for the
 * SDKs' gzip batches, while one call runs on the thread pool and returns one buffer (capped at
 * `limit` bytes, so a small bomb still stops there).
 */
export async function* bodyStream(req: Request, limit: number, raw?: Buffer[]): AsyncGenerator<Buffer> {
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase().trim();
  if (encoding !== "identity" && !(encoding in DECOMPRESS)) throw new ApiError(415, `unsupported Content-Encoding "${encoding}": send gzip or an uncompressed body`);
  // the bytes as sent (still compressed), for staging them as they are
  const sent: Buffer[] = raw ?? [];
  let seen = 0;
  // a refusal leaves the socket open: the 413 must still reach the client (then the connection closes)
  for await (const chunk of { [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false }) } as AsyncIterable<Buffer>) {
    seen += chunk.length;
    // a compressed body larger than the limit is larger than it uncompressed, all but always
    if (seen > limit) throw new PayloadTooLargeError(limit);
    if (encoding === "identity") {
      if (raw) raw.push(chunk);
      yield chunk;
    } else sent.push(chunk);
  }
  if (encoding === "identity") return;
  const compressed = sent.length === 1 ? sent[0]! : Buffer.concat(sent);
  // output in a few large chunks, not 16 KB ones (the SDKs' JSON shrinks 10–20×): a third of the CPU
  const options = { maxOutputLength: limit, chunkSize: Math.min(1 << 20, Math.max(64 << 10, compressed.length * 16)) };
  const failed = (err: Error) =>
    (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" ? new PayloadTooLargeError(limit) : new ApiError(400, `the request body could not be decompressed: ${err.message}`);
  if (compressed.length <= SYNC_MAX_IN) {
    // a small body (the SDKs' batches are ~10 KB gzipped) inflates in a fraction of a millisecond:
    // on the thread pool it costs more in stream and callback machinery than the inflate itself.
    // At most SYNC_MAX_OUT bytes here, so a small bomb cannot hold the event loop; a body that
    // inflates to more (within the limit) is inflated again on the thread pool.
    let out: Buffer | undefined;
    try {
      out = DECOMPRESS_SYNC[encoding as keyof typeof DECOMPRESS_SYNC](compressed, { ...options, maxOutputLength: Math.min(limit, SYNC_MAX_OUT) });
    } catch (err) {
      if (!((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" && limit > SYNC_MAX_OUT)) throw failed(err as Error);
    }
    if (out) {
      yield out;
      return;
    }
  }
  const decompress = DECOMPRESS[encoding as keyof typeof DECOMPRESS] as (buf: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions, cb: (err: Error | null, out: Buffer) => void) => void;
  yield await new Promise<Buffer>((resolve, reject) => decompress(compressed, options, (err, out) => (err ? reject(failed(err)) : resolve(out))));
}

/** The whole (decompressed) body as a Buffer. */
export async function readBody(req: Request, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of bodyStream(req, limit)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
