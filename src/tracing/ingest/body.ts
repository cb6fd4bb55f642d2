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
  const decompress = DECOMPRESS[encoding as keyof typeof DECOMPRESS] as (buf: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions, cb: (err: Error | null, out: Buffer) => void) => void;
  const compressed = sent.length === 1 ? sent[0]! : Buffer.concat(sent);
  yield await new Promise<Buffer>((resolve, reject) =>
    // output in a few large chunks, not 16 KB ones (the SDKs' JSON shrinks 10–20×): a third of the CPU
    decompress(compressed, { maxOutputLength: limit, chunkSize: Math.min(1 << 20, Math.max(64 << 10, compressed.length * 16)) }, (err, out) => {
      if (!err) return resolve(out);
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") reject(new PayloadTooLargeError(limit));
      else reject(new ApiError(400, `the request body could not be decompressed: ${err.message}`));
    }),
  );
}

/** The whole (decompressed) body as a Buffer. */
export async function readBody(req: Request, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of bodyStream(req, limit)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
