/**
 * Request bodies of the ingest endpoints: decompression (gzip / deflate; what `/info` advertises)
 * and the uncompressed size limit, counted as the body streams so a huge upload is refused early.
 */
import type { Request } from "express";
import { Transform, type Readable } from "node:stream";
import zlib from "node:zlib";
import { ApiError } from "../../shared/errors.js";

export class PayloadTooLargeError extends ApiError {
  constructor(limit: number) {
    // The rest of the body is never read: the connection cannot carry another request.
    super(413, `the request body is larger than the limit of ${limit} bytes (uncompressed); send smaller batches`, { Connection: "close" });
  }
}

/** The request body, decompressed, failing with 413 past `limit` bytes. */
export function bodyStream(req: Request, limit: number, raw?: Buffer[]): Readable {
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase().trim();
  // the bytes as sent (still compressed), for staging them as they are
  if (raw) req.on("data", (chunk: Buffer) => raw.push(chunk));
  let source: Readable = req;
  if (encoding === "gzip" || encoding === "x-gzip") source = req.pipe(zlib.createGunzip());
  else if (encoding === "deflate") source = req.pipe(zlib.createInflate());
  else if (encoding === "br") source = req.pipe(zlib.createBrotliDecompress());
  else if (encoding !== "identity") throw new ApiError(415, `unsupported Content-Encoding "${encoding}": send gzip or an uncompressed body`);
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit) done(new PayloadTooLargeError(limit));
      else done(null, chunk);
    },
  });
  source.on("error", (err) => counter.destroy(err.name === "Error" && "code" in err ? new ApiError(400, `the request body could not be decompressed: ${err.message}`) : err));
  return source.pipe(counter);
}

/** The whole (decompressed) body as a Buffer. */
export async function readBody(req: Request, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of bodyStream(req, limit)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
