/**
 * The ceiling of any tracing ingest that reads the SDK's requests in one Node.js thread: a server
 * that does only what every such ingest must do before it can check or store anything, and nothing
 * after. For `POST /runs/multipart` it reads the body, gunzips it, splits the parts (Berth's own
 * splitter) and JSON.parses every JSON part, then answers 202; it stores nothing.
 * bench/tracing-replay.ts sends it the same requests at the same concurrency right after each round
 * and prints its runs/s as a share of the same floor: Berth's share cannot exceed it, and the
 * distance between the two is what Berth's checks, staging, merge and writes cost.
 *
 * Run as a child process: answers its parent with {url} on the IPC channel once listening; ended
 * with SIGTERM.
 */
import http from "node:http";
import zlib from "node:zlib";
import { boundaryOf, MultipartSplitter } from "../src/tracing/ingest/multipart-splitter.js";

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    try {
      const raw = Buffer.concat(chunks);
      const body = req.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(raw) : raw;
      const splitter = new MultipartSplitter(boundaryOf(req.headers["content-type"] ?? "")!);
      const parts = splitter.push(body);
      splitter.end();
      for (const p of parts) {
        if (p.name.startsWith("attachment.")) continue;
        const text = p.data.toString("utf8");
        try {
          JSON.parse(text);
        } catch {
          // a payload part that is not JSON is kept as text by an ingest: no more work
        }
      }
      res.writeHead(202, { "content-type": "application/json" }).end("{}");
    } catch (err) {
      res.writeHead(400).end(String(err));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.send!({ url: `http://127.0.0.1:${port}` });
});
process.on("SIGTERM", () => process.exit(0));
