/**
 * PGlite's failures as words, for the code below and the initialising process (embedded.ts): its
 * WASM file system throws errors without a message (\`ErrnoError { errno: 54 }\` for a file where a
 * directory must be), which \`String(err)\` turns into "[object Object]".
 */
export const DESCRIBE_ERROR_SOURCE = `
function describeError(err) {
  if (err && typeof err.message === "string" && err.message) return err.message;
  if (err && err.name === "ErrnoError") return "a file system error in the data directory (PGlite errno " + err.errno + ")";
  try { return JSON.stringify(err) ?? String(err); } catch { return String(err); }
}
`;

/**
 * The code of the embedded database's thread: PGlite, and a Postgres wire-protocol front on a Unix
 * socket that lets any number of `pg` connections share PGlite's one session safely.
 *
 * Why our own front rather than pglite-socket's handler: that handler runs each protocol message
 * (Parse, Bind, Describe, Execute, Sync) as a call of its own and lets messages of different
 * connections interleave between them. On one session, a second connection's Parse between the
 * first's Parse and Execute replaces the statement the first is about to run, so Berth had to use
 * a single connection — and then every statement waited for the previous one's answer to travel
 * to the main thread and back (two thread wake-ups) before PGlite had anything to do: PGlite sat
 * idle most of the time and runs/s at c=50 stayed below the LangGraph dev server's (issue 16).
 *
 * Here the unit of work is a connection's messages up to and including a message that asks for
 * an answer (Sync, a simple Query, Flush…): one PGlite call per unit, one socket write for its
 * answer. Units of different connections never interleave, so statements of other connections
 * queue up in this thread and run back to back. A connection whose unit leaves the session inside
 * a transaction block (or mid-protocol, e.g. after a Flush or in COPY) keeps the session: only its
 * units run until its ReadyForQuery says idle again. That is exactly Postgres' isolation for one
 * session at a time: transactions never overlap, so none can see another's uncommitted writes.
 *
 * Plans are kept (issue 16): `pg` sends every parameterised query as an unnamed statement, so
 * Postgres parsed and planned the run path's large statements on every call, and on PGlite that
 * planning was most of the database thread's CPU. Since all connections share one session, the
 * front turns an unnamed statement into a named one of the session, keyed by its text and
 * parameter types, and later Parses of the same text bind to it (their own Parse becomes an empty
 * one, so the client still gets its ParseComplete). The cache is bounded; a schema change
 * (CREATE/ALTER/DROP…) empties it, since a kept `SELECT *` would otherwise fail with "cached plan
 * must not change result type". BERTH_PGLITE_PLAN_CACHE=0 turns it off.
 *
 * It is evaluated (not a module file) so that it runs the same from the TypeScript sources (tsx,
 * vitest) and from dist/; it loads PGlite from absolute paths resolved by the main thread.
 */
export const PGLITE_THREAD_SOURCE = `${DESCRIBE_ERROR_SOURCE}
const net = require("node:net");
const { parentPort, workerData } = require("node:worker_threads");
// PGlite's WASM (9 MB) compiled by Liftoff only, not tiered up to TurboFan as well: V8 otherwise
// keeps both codes of every hot function, ~45 MB more of the process's idle RSS (issue 16). The flag
// is process-wide, but only WASM compiled from now on reads it, and this thread compiles PGlite.
if (workerData.liftoffOnly) require("node:v8").setFlagsFromString("--liftoff-only");
const { PGlite } = require(workerData.pglitePath);
// pgvector, for the store's semantic search (store.index). Always loaded: a data directory where
// the extension was once created must open with it whatever today's config says.
const { vector } = require(workerData.pgvectorPath);

// Frontend messages that continue an exchange without asking for an answer yet: Parse, Bind,
// Describe, Execute, Close, CopyData. Any other message ends a unit.
const CONTINUES = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x64]);
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
const READY_FOR_QUERY = 0x5a;
const IDLE = 0x49;
const ROLLBACK = (() => {
  const sql = Buffer.from("ROLLBACK\\0");
  const q = Buffer.alloc(5);
  q[0] = 0x51;
  q.writeInt32BE(4 + sql.length, 1);
  const sync = Buffer.from([0x53, 0, 0, 0, 4]);
  return Buffer.concat([sync, q, sql]);
})();

/** Whether the session stays with the connection after this answer: it does not end idle. */
function holdsSession(reply) {
  let off = 0;
  let last = -1;
  while (off + 5 <= reply.length) {
    last = off;
    off += 1 + reply.readInt32BE(off + 1);
  }
  if (last < 0) return true;
  return !(reply[last] === READY_FOR_QUERY && reply[last + 5] === IDLE);
}

/** Named statements the front keeps at most; the least recently used is closed beyond it. */
const PLAN_CACHE_MAX = 200;
const PLAN_NAME_PREFIX = "_berth_plan_";
const PARSE_COMPLETE = 0x31;
const ERROR_RESPONSE = 0x45;
const COMMAND_COMPLETE = 0x43;
/** Command tags after which kept plans may no longer fit the schema (or no longer exist). */
const SCHEMA_CHANGE = /^(CREATE|ALTER|DROP|DISCARD|DEALLOCATE|COMMENT|GRANT|REVOKE|REINDEX|CLUSTER|IMPORT)\\b/;
const EMPTY_PARSE = Buffer.from([0x50, 0, 0, 0, 8, 0, 0, 0, 0]);

const message = (type, body) => {
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const cstring = (buf, off) => {
  const end = buf.indexOf(0, off);
  return [buf.toString("utf8", off, end), end + 1];
};

/** What an answer says: whether it holds an error, and whether it changed the schema. */
function scanReply(reply) {
  let error = false;
  let schemaChanged = false;
  for (let off = 0; off + 5 <= reply.length; off += 1 + reply.readInt32BE(off + 1)) {
    const type = reply[off];
    if (type === ERROR_RESPONSE) error = true;
    else if (type === COMMAND_COMPLETE && SCHEMA_CHANGE.test(reply.toString("latin1", off + 5, Math.min(off + 20, reply.length)))) schemaChanged = true;
  }
  return { error, schemaChanged };
}

/**
 * The session's kept statements: unnamed statements' text (and parameter types) → the name of a
 * statement prepared in the session, least recently used first.
 */
class PlanCache {
  constructor(max) {
    this.max = max;
    this.byKey = new Map();
    this.next = 0;
    /** Names to close once the session is idle (evicted, or prepared by a unit that failed). */
    this.closing = [];
  }

  /**
   * A connection's unit with its unnamed statements turned into kept ones. \`conn.unnamed\` is the
   * kept statement the connection's unnamed statement stands for (a Bind may reuse it later).
   * Returns the bytes to run and the statements this unit prepares, to keep if it succeeds.
   */
  rewrite(conn, bytes) {
    let out = null;
    const fresh = [];
    let copied = 0;
    const replace = (at, end, buf) => {
      if (!out) out = [];
      out.push(bytes.subarray(copied, at), buf);
      copied = end;
    };
    for (let at = 0; at + 5 <= bytes.length; ) {
      const type = bytes[at];
      const end = at + 1 + bytes.readInt32BE(at + 1);
      if (type === 0x50) {
        // Parse: name, text, parameter types
        // (a named statement of the client's own leaves its unnamed statement as it is)
        if (bytes[at + 5] === 0) {
          const key = bytes.toString("latin1", at + 6, end);
          const kept = this.byKey.get(key);
          if (kept !== undefined) {
            this.byKey.delete(key);
            this.byKey.set(key, kept);
            conn.unnamed = kept;
            replace(at, end, EMPTY_PARSE);
          } else {
            const fresh1 = PLAN_NAME_PREFIX + ++this.next;
            fresh.push({ key, name: fresh1 });
            conn.unnamed = fresh1;
            replace(at, end, message(0x50, Buffer.concat([Buffer.from(fresh1 + "\\0"), bytes.subarray(at + 6, end)])));
          }
        }
      } else if (type === 0x42 && conn.unnamed) {
        // Bind: portal, statement, …
        const [, stmtAt] = cstring(bytes, at + 5);
        if (bytes[stmtAt] === 0) {
          replace(at, end, message(0x42, Buffer.concat([bytes.subarray(at + 5, stmtAt), Buffer.from(conn.unnamed), bytes.subarray(stmtAt, end)])));
        }
      } else if (type === 0x44 && conn.unnamed && bytes[at + 5] === 0x53 && bytes[at + 6] === 0) {
        // Describe of the unnamed statement
        replace(at, end, message(0x44, Buffer.from("S" + conn.unnamed + "\\0")));
      } else if ((type === 0x43 && bytes[at + 5] === 0x53 && bytes[at + 6] === 0) || type === 0x51) {
        // Close of the unnamed statement, or a simple Query: both end the unnamed statement
        conn.unnamed = null;
      }
      at = end;
    }
    if (!out) return { bytes, fresh };
    out.push(bytes.subarray(copied));
    return { bytes: Buffer.concat(out), fresh };
  }

  /** After the unit ran: keep what it prepared if it all went well; forget everything on a schema change. */
  settle(conn, fresh, reply) {
    const { error, schemaChanged } = scanReply(reply);
    if (schemaChanged) {
      this.clear();
      conn.unnamed = null;
    }
    if (!fresh.length) return;
    if (error || schemaChanged) {
      // a failed unit may or may not have prepared them: close (closing a missing one is no error)
      for (const f of fresh) this.closing.push(f.name);
      if (fresh.some((f) => f.name === conn.unnamed)) conn.unnamed = null;
      return;
    }
    for (const f of fresh) {
      this.byKey.set(f.key, f.name);
      if (this.byKey.size > this.max) {
        const [oldest, name] = this.byKey.entries().next().value;
        this.byKey.delete(oldest);
        this.closing.push(name);
      }
    }
  }

  clear() {
    for (const name of this.byKey.values()) this.closing.push(name);
    this.byKey.clear();
  }

  /** Close messages for what waits to be closed, and a Sync; null if nothing does. */
  takeCloses() {
    if (!this.closing.length) return null;
    const msgs = this.closing.map((name) => message(0x43, Buffer.from("S" + name + "\\0")));
    this.closing = [];
    msgs.push(Buffer.from([0x53, 0, 0, 0, 4]));
    return Buffer.concat(msgs);
  }
}

/** PGlite's one session, shared by every connection: one unit at a time. */
class Session {
  constructor(db, plans) {
    this.db = db;
    /** Kept statements (null: off). */
    this.plans = plans;
    this.queue = [];
    /** The connection inside a transaction (or mid-protocol): only its units may run. */
    this.owner = null;
    this.running = false;
  }

  run(conn, bytes) {
    return new Promise((resolve, reject) => {
      this.queue.push({ conn, bytes, resolve, reject, at: stats ? performance.now() : 0 });
      void this.pump();
    });
  }

  async pump() {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const i = this.owner === null ? (this.queue.length ? 0 : -1) : this.queue.findIndex((u) => u.conn === this.owner);
        if (i < 0) break;
        if (this.owner === null && this.plans) {
          const closes = this.plans.takeCloses();
          if (closes) {
            try {
              await this.exec(closes);
            } catch {
              // the database itself failed: the next unit will say so
            }
          }
        }
        const unit = this.queue.splice(i, 1)[0];
        const { bytes, fresh } = this.plans ? this.plans.rewrite(unit.conn, unit.bytes) : { bytes: unit.bytes, fresh: [] };
        let reply;
        const t0 = stats ? performance.now() : 0;
        try {
          reply = await this.exec(bytes);
          if (stats) stats.unit(t0 - unit.at, performance.now() - t0, this.queue.length);
        } catch (err) {
          // Not a database error (those are answers): the connection is closed, and release()
          // rolls back whatever it left open.
          unit.reject(err);
          continue;
        }
        if (this.plans) this.plans.settle(unit.conn, fresh, reply);
        if (reply.length) this.owner = holdsSession(reply) ? unit.conn : null;
        if (workerData.debug) console.error("[pglite]", unit.conn.id, String.fromCharCode(unit.bytes[0]), JSON.stringify(unit.bytes.subarray(0, 60).toString("latin1")), "->", reply.length, "owner", this.owner && this.owner.id, "queued", this.queue.length);
        unit.resolve(reply);
      }
    } finally {
      this.running = false;
    }
  }

  /** One PGlite call: the answer to \`bytes\`, whole. */
  async exec(bytes) {
    const out = [];
    await this.db.runExclusive(() => this.db.execProtocolRawStream(bytes, { onRawData: (d) => out.push(Buffer.from(d)) }));
    return out.length === 1 ? out[0] : Buffer.concat(out);
  }

  /** A connection went away: drop its queued units and end what it left open. */
  async release(conn) {
    this.queue = this.queue.filter((u) => {
      if (u.conn !== conn) return true;
      u.reject(new Error("connection closed"));
      return false;
    });
    if (this.owner !== conn) return;
    try {
      await this.run(conn, ROLLBACK);
    } catch {
      // the database itself failed; nothing more to undo
    }
    if (this.owner === conn) this.owner = null;
    void this.pump();
  }
}

/**
 * BERTH_PGLITE_STATS=1: every 2 s with units run, a line on stderr: units run, their mean wait in
 * the queue (for the session) and mean PGlite call, and the share of the time PGlite was running
 * one (bench/agent-server-roundtrips.ts reads them to see where a statement's time goes).
 */
const stats = workerData.stats ? (() => {
  let units = 0, wait = 0, exec = 0, queued = 0;
  let since = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (units) {
      console.error(\`[pglite stats] \${units} units in \${((now - since) / 1000).toFixed(1)} s: wait \${(wait / units).toFixed(2)} ms, call \${(exec / units).toFixed(2)} ms, queue \${(queued / units).toFixed(1)} behind, PGlite busy \${(100 * exec / (now - since)).toFixed(0)} %\`);
    }
    units = wait = exec = queued = 0;
    since = now;
  }, 2000).unref();
  return { unit(w, e, q) { units++; wait += w; exec += e; queued += q; } };
})() : null;

let connections = 0;
function serve(session, socket) {
  const conn = { id: ++connections, unnamed: null };
  let started = false;
  let closed = false;
  /** Units of this connection, answered in order. */
  let chain = Promise.resolve();
  const close = () => {
    if (closed) return;
    closed = true;
    socket.destroy();
    chain = chain.then(() => session.release(conn));
  };
  const submit = (bytes, then) => {
    chain = chain.then(async () => {
      if (closed) return;
      let reply;
      try {
        reply = await session.run(conn, bytes);
      } catch {
        return close();
      }
      if (reply.length && !socket.destroyed) socket.write(reply);
      if (then) then();
    });
  };
  // Bytes received and not yet handled, as a list: a big message (a 26 MB example) arrives in
  // hundreds of chunks, and joining them into one buffer on every chunk copied the whole prefix
  // each time (quadratic: gigabytes of copying, minutes of CPU on a busy machine). They are
  // joined once, when the message they start is complete.
  let chunks = [];
  let buffered = 0;
  /** Bytes needed before the buffered data holds something to handle (0: unknown). */
  let need = 0;
  socket.on("data", (data) => {
    // copied: the socket may reuse the chunk's memory once this handler returns
    chunks.push(Buffer.from(data));
    buffered += data.length;
    if (buffered < need) return;
    let pending = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered);
    chunks = [];
    buffered = 0;
    need = 0;
    let off = 0;
    let wanted = 0;
    while (!started) {
      // untyped start-up packets: length, then a code
      if (pending.length - off < 8) break;
      const len = pending.readInt32BE(off);
      const code = pending.readInt32BE(off + 4);
      if (pending.length - off < len) break;
      if (code === SSL_REQUEST || code === GSS_REQUEST) {
        socket.write("N");
        off += len;
      } else if (code === CANCEL_REQUEST) {
        // PGlite has nothing to cancel (a statement runs to its end)
        return close();
      } else if (code === PROTOCOL_3) {
        submit(pending.subarray(off, off + len));
        off += len;
        started = true;
      } else {
        return close();
      }
    }
    if (started) {
      // a unit ends with the last message that asks for an answer; the rest waits for more data
      let end = off;
      let at = off;
      while (pending.length - at >= 5) {
        const len = 1 + pending.readInt32BE(at + 1);
        if (pending.length - at < len) {
          wanted = at + len;
          break;
        }
        const type = pending[at];
        at += len;
        if (type === 0x58) {
          // Terminate
          if (end > off) submit(pending.subarray(off, end));
          chain = chain.then(() => close());
          return;
        }
        if (!CONTINUES.has(type)) end = at;
      }
      if (end > off) {
        submit(pending.subarray(off, end));
        off = end;
      }
    }
    if (off < pending.length) {
      chunks.push(pending.subarray(off));
      buffered = pending.length - off;
      need = wanted > off ? wanted - off : 0;
    }
  });
  socket.on("error", close);
  socket.on("close", close);
}

(async () => {
  let db;
  try {
    db = await PGlite.create(workerData.dataDir, { postgresqlconf: workerData.conf, extensions: { vector } });
  } catch (err) {
    parentPort.postMessage({ type: "error", stage: "open", message: describeError(err) });
    return;
  }
  const session = new Session(db, workerData.planCache ? new PlanCache(PLAN_CACHE_MAX) : null);
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serve(session, socket);
  });
  try {
    await new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(workerData.listenPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    await db.close().catch(() => undefined);
    parentPort.postMessage({ type: "error", stage: "listen", message: describeError(err) });
    return;
  }
  parentPort.on("message", async (m) => {
    if (m !== "close") return;
    await new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
    // let the connections' rollbacks run before the database closes
    while (session.running || session.queue.length) await new Promise((r) => setTimeout(r, 5));
    await db.close().catch(() => undefined);
    parentPort.postMessage({ type: "closed" });
    parentPort.close();
  });
  parentPort.postMessage({ type: "ready" });
})();
`;
