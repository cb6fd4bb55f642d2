/**
 * The stable address of a local deployment: a small reverse proxy in front of whichever agent
 * server process currently serves the deployment, so `custom_url` survives revisions, restarts
 * and crashes.
 *
 * Built on node:http rather than a proxy library: what a deployment needs is narrow (stream
 * request and response bodies both ways, SSE included; keep paths, query strings and headers;
 * tunnel upgrades; switch targets atomically; count in-flight requests per target so a retired
 * process can drain), `http-proxy` has had no release since 2020 and trips deprecation warnings on
 * current Node, and `http-proxy-3` (its maintained rewrite) would add a dependency for ~150 lines
 * whose behaviour we would still have to test here.
 *
 * States: `up` (forward to a target), `held` (a swap or restart is under way: requests wait, up to
 * `holdMs`, for the next target instead of failing), `down` (nothing runs: 503 at once).
 * The target is read once per request, so `setTarget` is atomic: requests already forwarded finish
 * against the process they started on; new ones go to the new target.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { listen } from "../../shared/net.js";

export interface ProxyOptions {
  host?: string;
  /** 0 (default) picks a free port; the control plane passes the deployment's remembered port. */
  port?: number;
  /** How long a request waits for a target while the proxy is held (default 30 s), then 503. */
  holdMs?: number;
}

type State = { kind: "up"; url: URL } | { kind: "held" } | { kind: "down"; reason: string };

interface Target {
  url: URL;
  agent: http.Agent;
  inFlight: number;
  idle: (() => void)[];
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the proxy's own business and are not forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "upgrade"]);

export class DeploymentProxy {
  private state: State = { kind: "down", reason: "the deployment has no running revision" };
  private readonly targets = new Map<string, Target>();
  private changed: (() => void)[] = [];
  private readonly sockets = new Set<Duplex>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly holdMs: number,
  ) {}

  static async listen(o: ProxyOptions = {}): Promise<DeploymentProxy> {
    const host = o.host ?? "127.0.0.1";
    const server = http.createServer();
    server.keepAliveTimeout = 65_000;
    // Uploads may be slow and streams long; the agent server applies its own limits.
    server.requestTimeout = 0;
    await listen(server, o.port ?? 0, host);
    const { port } = server.address() as net.AddressInfo;
    const proxy = new DeploymentProxy(server, `http://${host.includes(":") ? `[${host}]` : host}:${port}`, o.holdMs ?? 30_000);
    server.on("request", (req, res) => void proxy.handle(req, res, 0));
    server.on("upgrade", (req, socket, head) => void proxy.upgrade(req, socket, head));
    server.on("connection", (s) => {
      proxy.sockets.add(s);
      s.once("close", () => proxy.sockets.delete(s));
    });
    return proxy;
  }

  /** The process requests go to now, if any. */
  get target(): string | undefined {
    return this.state.kind === "up" ? this.state.url.origin : undefined;
  }

  get status(): State["kind"] {
    return this.state.kind;
  }

  /** Send new requests to `url` (atomic: requests in flight stay where they are). */
  setTarget(url: string): void {
    const parsed = new URL(url);
    if (!this.targets.has(parsed.origin)) {
      this.targets.set(parsed.origin, { url: parsed, agent: new http.Agent({ keepAlive: true }), inFlight: 0, idle: [] });
    }
    this.setState({ kind: "up", url: parsed });
  }

  /** A swap or restart is under way: new requests wait (up to `holdMs`) for the next `setTarget`. */
  hold(): void {
    this.setState({ kind: "held" });
  }

  /** Nothing serves the deployment: requests fail at once with 503 and `reason`. */
  down(reason: string): void {
    this.setState({ kind: "down", reason });
  }

  /** Requests currently forwarded to `url`. */
  inFlight(url: string): number {
    return this.targets.get(new URL(url).origin)?.inFlight ?? 0;
  }

  /**
   * Wait until no request is in flight to `url` (at most `timeoutMs`), then forget it (closing its
   * idle keep-alive connections). Resolves true when it drained, false on timeout.
   */
  async retire(url: string, timeoutMs: number): Promise<boolean> {
    const origin = new URL(url).origin;
    const t = this.targets.get(origin);
    if (!t) return true;
    let drained = t.inFlight === 0;
    if (!drained) {
      drained = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        t.idle.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    }
    if (this.target !== origin) {
      this.targets.delete(origin);
      t.agent.destroy();
    }
    return drained;
  }

  /** Stop listening and drop every connection. */
  async close(): Promise<void> {
    this.down("the deployment is being deleted");
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    this.server.closeAllConnections();
    for (const s of this.sockets) s.destroy();
    for (const t of this.targets.values()) t.agent.destroy();
    this.targets.clear();
    await closed;
  }

  private setState(s: State): void {
    this.state = s;
    const waiters = this.changed;
    this.changed = [];
    for (const w of waiters) w();
  }

  /** The target for a new request: at once when up, after waiting while held, undefined when down. */
  private async pick(): Promise<Target | undefined> {
    const deadline = Date.now() + this.holdMs;
    while (this.state.kind === "held" && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.changed.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.state.kind === "up" ? this.targets.get(this.state.url.origin) : undefined;
  }

  private unavailable(res: ServerResponse): void {
    const detail = this.state.kind === "down" ? `Deployment unavailable: ${this.state.reason}.` : "Deployment unavailable: no revision became ready in time.";
    res.writeHead(503, { "content-type": "application/json", "retry-after": "5" }).end(JSON.stringify({ detail }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse, attempt: number): Promise<void> {
    const target = await this.pick();
    // the client left while held (req itself is destroyed once its body was read: not a sign)
    if (res.destroyed || req.socket.destroyed) return;
    if (!target) return this.unavailable(res);
    target.inFlight++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--target.inFlight === 0) for (const f of target.idle.splice(0)) f();
    };
    const upstream = http.request({
      protocol: target.url.protocol,
      hostname: target.url.hostname,
      port: target.url.port,
      method: req.method,
      path: req.url,
      headers: forwardHeaders(req),
      agent: target.agent,
    });
    upstream.on("response", (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, stripHopByHop(up.headers));
      // SSE: send the headers now, not with the first event
      if (String(up.headers["content-type"] ?? "").startsWith("text/event-stream")) res.flushHeaders();
      up.pipe(res);
      up.on("error", () => res.destroy());
      up.on("close", release);
    });
    upstream.on("error", (err: NodeJS.ErrnoException) => {
      release();
      // Nothing reached a process that is gone (crashed, restarting): a request without a body can
      // safely go again, to whatever target the proxy has by then.
      if (err.code === "ECONNREFUSED" && !hasBody(req) && attempt < 3 && !res.headersSent) {
        setTimeout(() => void this.handle(req, res, attempt + 1), 200 * (attempt + 1));
        return;
      }
      if (!res.headersSent) {
        res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ detail: `Bad gateway: the agent server did not answer (${err.code ?? err.message}).` }));
      } else res.destroy();
    });
    // A client that goes away cancels the upstream request (a streaming run sees the disconnect).
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
      release();
    });
    // a retried request (no body) has been read already
    if (req.readableEnded) upstream.end();
    else req.pipe(upstream);
  }

  /** Tunnel an upgrade (WebSocket) to the current target. */
  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const target = await this.pick();
    if (!target || socket.destroyed) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    target.inFlight++;
    const upstream = net.connect({ host: target.url.hostname, port: Number(target.url.port) });
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      if (--target.inFlight === 0) for (const f of target.idle.splice(0)) f();
      upstream.destroy();
      socket.destroy();
    };
    upstream.on("error", done).on("close", done);
    socket.on("close", done);
    upstream.on("connect", () => {
      const headers = { ...req.headers, ...forwardedFor(req) };
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (const [k, v] of Object.entries(headers)) for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined) lines.push(`${k}: ${one}`);
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** Headers named in `Connection` are hop-by-hop too. */
function stripHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || named.has(k)) continue;
    // Node re-frames bodies itself (chunked when there is no content-length)
    if (k === "transfer-encoding") continue;
    out[k] = v;
  }
  return out;
}

function forwardedFor(req: IncomingMessage): Record<string, string> {
  const prior = req.headers["x-forwarded-for"];
  const client = req.socket.remoteAddress ?? "";
  return {
    "x-forwarded-for": prior ? `${prior}, ${client}` : client,
    "x-forwarded-host": String(req.headers["x-forwarded-host"] ?? req.headers.host ?? ""),
    "x-forwarded-proto": String(req.headers["x-forwarded-proto"] ?? "http"),
  };
}

function forwardHeaders(req: IncomingMessage): IncomingHttpHeaders {
  const out = stripHopByHop(req.headers);
  // A chunked request body stays chunked (Node frames it when the header is present).
  if (req.headers["transfer-encoding"]) out["transfer-encoding"] = req.headers["transfer-encoding"];
  return { ...out, ...forwardedFor(req) };
}
