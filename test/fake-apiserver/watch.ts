/**
 * Watch streams: newline-delimited JSON `{type, object}` over a chunked HTTP response.
 *
 * Start: without resourceVersion (or "0" / "") → ADDED for every matching object, then live
 * events; from resourceVersion N → the retained history after N, then live events; N older than
 * the retained history → an in-stream `ERROR` Status 410 "Expired" and the end of the stream
 * (what kube-apiserver does). Selectors filter per watcher with kube-apiserver's transition rules:
 * an object that stops matching is delivered as DELETED (previous content, new resourceVersion),
 * one that starts matching as ADDED. `timeoutSeconds` ends the stream cleanly (after a BOOKMARK
 * when `allowWatchBookmarks=true`); `sendInitialEvents=true` ends the initial ADDED burst with the
 * `k8s.io/initial-events-end` BOOKMARK.
 *
 * Fan-out is per type: each store event is offered to the watchers of its type only, and each
 * distinct line is serialized once per event and shared by all watchers.
 *
 * Approximations: no periodic bookmarks; a resourceVersion newer than the current one is
 * accepted as "now" (kube-apiserver would wait for it); slow consumers are buffered without limit.
 */
import type { ServerResponse } from "node:http";
import type { ResourceType } from "./resources.js";
import { apiVersionOf, typeKey } from "./resources.js";
import { isAlways, type Predicate } from "./selectors.js";
import type { Store, StoreEvent } from "./store.js";

export interface WatchRequest {
  rt: ResourceType;
  namespace?: string;
  predicate: Predicate;
  resourceVersion?: string;
  allowBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds?: number;
}

type LineType = "ADDED" | "MODIFIED" | "DELETED";

function line(type: string, object: unknown): string {
  return `{"type":"${type}","object":${JSON.stringify(object)}}\n`;
}

/** The serialized line for this event as `type`, cached on the event. */
function eventLine(e: StoreEvent, type: LineType): string {
  e.lines ??= new Map();
  let cached = e.lines.get(type);
  if (cached === undefined) {
    // An object dropping out of a selector is reported with its previous content.
    const object =
      type === "DELETED" && e.type === "MODIFIED" ? { ...e.prev, metadata: { ...e.prev.metadata, resourceVersion: String(e.rv) } } : e.object;
    cached = line(type, object);
    e.lines.set(type, cached);
  }
  return cached;
}

export function expiredLine(requested: string | number, current: number): string {
  return line("ERROR", {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `too old resource version: ${requested} (${current})`,
    reason: "Expired",
    code: 410,
  });
}

class Watcher {
  private timer?: NodeJS.Timeout;
  private corked = false;
  closed = false;

  constructor(
    private readonly hub: WatchHub,
    readonly req: WatchRequest,
    private readonly res: ServerResponse,
  ) {}

  /** Events written in the same tick go out in one syscall. */
  write(text: string): void {
    if (this.closed) return;
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      process.nextTick(() => {
        this.corked = false;
        this.res.uncork();
      });
    }
    this.res.write(text);
  }

  deliver(e: StoreEvent): void {
    if (this.closed) return;
    if (this.req.namespace !== undefined && e.namespace !== this.req.namespace) return;
    if (isAlways(this.req.predicate)) {
      this.write(eventLine(e, e.type));
      return;
    }
    const now = e.type !== "DELETED" && this.req.predicate(e.object);
    const before = e.type === "ADDED" ? false : this.req.predicate(e.prev);
    if (e.type === "DELETED") {
      if (before) this.write(eventLine(e, "DELETED"));
    } else if (now && before) this.write(eventLine(e, "MODIFIED"));
    else if (now) this.write(eventLine(e, "ADDED"));
    else if (before) this.write(eventLine(e, "DELETED"));
  }

  bookmark(annotations?: Record<string, string>): void {
    if (!this.req.allowBookmarks) return;
    const metadata: Record<string, unknown> = { resourceVersion: String(this.hub.store.rv) };
    if (annotations) metadata.annotations = annotations;
    this.write(line("BOOKMARK", { kind: this.req.rt.kind, apiVersion: apiVersionOf(this.req.rt), metadata }));
  }

  start(): void {
    if (this.req.timeoutSeconds && this.req.timeoutSeconds > 0) {
      this.timer = setTimeout(() => {
        this.bookmark();
        this.end();
      }, this.req.timeoutSeconds * 1000);
      this.timer.unref();
    }
  }

  end(finalLine?: string): void {
    if (this.closed) return;
    if (finalLine) this.res.write(finalLine);
    this.detach();
    this.res.end();
  }

  /** Stop delivering (stream ended by us or by the client). */
  detach(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.hub.unregister(this);
  }
}

export class WatchHub {
  private readonly byType = new Map<string, Set<Watcher>>();

  constructor(readonly store: Store) {
    store.onEvent((e) => {
      const set = this.byType.get(e.key);
      if (set) for (const w of set) w.deliver(e);
    });
  }

  get size(): number {
    let n = 0;
    for (const s of this.byType.values()) n += s.size;
    return n;
  }

  unregister(w: Watcher): void {
    const key = typeKey(w.req.rt);
    const set = this.byType.get(key);
    set?.delete(w);
    if (set && set.size === 0) this.byType.delete(key);
  }

  /** Start streaming. The caller validated the request (selectors, resourceVersion syntax). */
  open(req: WatchRequest, res: ServerResponse, initialObjects: () => any[]): void {
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private", "Transfer-Encoding": "chunked" });
    res.socket?.setNoDelay(true);
    // Send the headers now: clients (client-node's fetch) wait for them before reading events.
    res.flushHeaders();
    const w = new Watcher(this, req, res);
    res.on("close", () => w.detach());
    const rvText = req.resourceVersion;
    if (rvText === undefined || rvText === "" || rvText === "0") {
      for (const obj of initialObjects()) w.write(line("ADDED", obj));
      if (req.sendInitialEvents) w.bookmark({ "k8s.io/initial-events-end": "true" });
    } else {
      const rv = Number(rvText);
      if (rv < this.store.compactedRv) {
        w.end(expiredLine(rvText, this.store.rv));
        return;
      }
      for (const e of this.store.eventsSince(rv)) if (e.key === typeKey(req.rt)) w.deliver(e);
    }
    let set = this.byType.get(typeKey(req.rt));
    if (!set) this.byType.set(typeKey(req.rt), (set = new Set()));
    set.add(w);
    w.start();
  }

  /** End every stream cleanly; clients re-watch from their last resourceVersion. */
  closeAll(): void {
    for (const set of [...this.byType.values()]) for (const w of [...set]) w.end();
  }

  /** End every stream with an in-stream 410 Expired (after a compaction). */
  expireAll(): void {
    for (const set of [...this.byType.values()]) {
      for (const w of [...set]) w.end(expiredLine(w.req.resourceVersion ?? "0", this.store.rv));
    }
  }
}
