/**
 * The Threads tab's pure parts: the state tree's rows (expanded containers only, capped children,
 * opaque message lists), the checkpoint diff (keys, indices, messages matched by id), history
 * paging (one extra state tells whether an older page exists), the search form's query and the
 * A2A context id.
 */
import { describe, expect, it } from "vitest";
import { countChanges, diffValues, formatPath } from "../../src/console/studio/threads/checkpoint-diff";
import { asMessages } from "../../src/console/studio/threads/messages";
import { a2aContextId, buildSearchQuery, emptyForm, parseJsonObject, parseMetadataFilter } from "../../src/console/studio/threads/search";
import { containerIds, flattenState, isMoreRow, pathId, summarize, toggle, type TreeRow } from "../../src/console/studio/threads/state-tree";
import { firstPage, historyQuery, newer, older, parentsOf, summarizeCheckpoint, toPage } from "../../src/console/studio/threads/timeline";

const treeRows = (rows: ReturnType<typeof flattenState>) => rows.filter((r): r is TreeRow => !isMoreRow(r));

describe("state tree", () => {
  const values = { count: 3, name: "x", nested: { a: [1, 2], b: null }, empty: {}, list: Array.from({ length: 5 }, (_, i) => i) };

  it("lists top-level keys only while nothing is expanded", () => {
    const rows = treeRows(flattenState(values, new Set()));
    expect(rows.map((r) => r.label)).toEqual(["count", "name", "nested", "empty", "list"]);
    expect(rows.map((r) => r.summary)).toEqual(["3", '"x"', "{2 keys}", "{0 keys}", "[5 items]"]);
    expect(rows.find((r) => r.label === "empty")!.expandable).toBe(false);
  });

  it("lists an expanded container's children one level deeper, and nothing under a collapsed one", () => {
    const rows = treeRows(flattenState(values, new Set(["nested"])));
    expect(rows.map((r) => `${r.depth}:${r.id}`)).toEqual(["0:count", "0:name", "0:nested", "1:nested/a", "1:nested/b", "0:empty", "0:list"]);
    const deeper = treeRows(flattenState(values, new Set(["nested", "nested/a"])));
    expect(deeper.filter((r) => r.depth === 2).map((r) => r.id)).toEqual(["nested/a/0", "nested/a/1"]);
    // a child stays hidden while its parent is collapsed, even when it is itself in the set
    expect(treeRows(flattenState(values, new Set(["nested/a"]))).some((r) => r.depth > 0)).toBe(false);
  });

  it("caps a container's children with a 'more' row, lifted on request", () => {
    const big = { xs: Array.from({ length: 450 }, (_, i) => i) };
    const rows = flattenState(big, new Set(["xs"]), { cap: 200 });
    expect(rows).toHaveLength(1 + 200 + 1);
    const more = rows.at(-1)!;
    expect(isMoreRow(more) && more.more).toBe(250);
    expect(flattenState(big, new Set(["xs"]), { cap: 200, shownMore: new Set(["xs"]) })).toHaveLength(451);
  });

  it("lists no rows under an opaque container (messages shown as messages)", () => {
    const rows = treeRows(flattenState(values, new Set(["nested", "list"]), { opaque: (_v, id) => id === "list" }));
    expect(rows.find((r) => r.id === "list")!.opaque).toBe(true);
    expect(rows.some((r) => r.id.startsWith("list/"))).toBe(false);
    expect(rows.some((r) => r.id === "nested/a")).toBe(true);
  });

  it("keeps keys with slashes apart from nesting", () => {
    expect(pathId(["a/b"])).not.toBe(pathId(["a", "b"]));
    const rows = treeRows(flattenState({ "a/b": { c: 1 }, a: { b: { c: 2 } } }, new Set([pathId(["a/b"])])));
    expect(rows.map((r) => r.id)).toEqual([pathId(["a/b"]), pathId(["a/b", "c"]), "a"]);
  });

  it("summarises long strings and finds containers to a depth", () => {
    expect(summarize("y".repeat(500), 10)).toBe(JSON.stringify(`${"y".repeat(10)}…`));
    expect(summarize(undefined)).toBe("undefined");
    expect(containerIds(values, 1)).toEqual(["nested", "list"]);
    expect(containerIds(values, 2)).toEqual(["nested", "nested/a", "list"]);
    expect([...toggle(new Set(["a"]), "a")]).toEqual([]);
    expect([...toggle(new Set(), "a")]).toEqual(["a"]);
  });
});

describe("checkpoint diff", () => {
  it("reports added, removed and changed keys with their paths", () => {
    const d = diffValues({ a: 1, b: { c: "x", d: [1, 2] }, gone: true }, { a: 2, b: { c: "x", d: [1, 3, 4] }, fresh: null });
    expect(d.map((e) => [formatPath(e.path), e.change, e.before, e.after])).toEqual([
      ["a", "changed", 1, 2],
      ["b.d[1]", "changed", 2, 3],
      ["b.d[2]", "added", undefined, 4],
      ["fresh", "added", undefined, null],
      ["gone", "removed", true, undefined],
    ]);
    expect(countChanges(d)).toEqual({ added: 2, removed: 1, changed: 2 });
  });

  it("is empty for equal values", () => {
    expect(diffValues({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });

  it("matches messages by id: one inserted early is one addition, an edited one one change", () => {
    const m = (id: string, content: string) => ({ id, type: "human", content });
    const before = { messages: [m("1", "hi"), m("2", "there")] };
    const after = { messages: [m("0", "first"), m("1", "hi"), m("2", "THERE")] };
    const d = diffValues(before, after);
    expect(d.map((e) => [formatPath(e.path), e.change])).toEqual([
      ["messages[id=0]", "added"],
      ["messages[id=2].content", "changed"],
    ]);
  });

  it("compares by index when ids repeat or are missing, and a type change is one change", () => {
    expect(diffValues([{ id: "a" }, { id: "a", x: 1 }], [{ id: "a" }, { id: "a", x: 2 }]).map((e) => formatPath(e.path))).toEqual(["[1].x"]);
    expect(diffValues({ v: { a: 1 } }, { v: "text" })).toEqual([{ path: ["v"], change: "changed", before: { a: 1 }, after: "text" }]);
    expect(formatPath([])).toBe("(whole state)");
    expect(formatPath(["odd key", 0])).toBe('["odd key"][0]');
  });
});

describe("history paging", () => {
  const state = (i: number) => ({ checkpoint: { checkpoint_id: `cp-${i}` } });

  it("asks for one more than a page and starts the next page before the last one shown", () => {
    let p = firstPage(3);
    expect(historyQuery(p)).toEqual({ limit: 4 });
    const page = toPage(p, [0, 1, 2, 3].map(state));
    expect(page.items.map((s) => s.checkpoint.checkpoint_id)).toEqual(["cp-0", "cp-1", "cp-2"]);
    expect(page.olderCursor).toBe("cp-2");
    p = older(p, page.olderCursor!);
    expect(historyQuery(p)).toEqual({ limit: 4, before: { configurable: { checkpoint_id: "cp-2" } } });
    // the oldest page: fewer states than asked for, no cursor
    expect(toPage(p, [3].map(state)).olderCursor).toBeUndefined();
    expect(newer(p)).toEqual(firstPage(3));
    expect(newer(firstPage(3))).toEqual(firstPage(3));
  });

  it("walks 1,000 checkpoints in pages of 50 without skipping or repeating one", () => {
    const all = Array.from({ length: 1000 }, (_, i) => state(999 - i)); // newest first
    const server = (q: ReturnType<typeof historyQuery>) => {
      const from = q.before ? all.findIndex((s) => s.checkpoint.checkpoint_id === q.before!.configurable!.checkpoint_id) + 1 : 0;
      return all.slice(from, from + q.limit);
    };
    let p = firstPage(50);
    const seen: string[] = [];
    for (;;) {
      const page = toPage(p, server(historyQuery(p)));
      expect(page.items.length).toBeLessThanOrEqual(50);
      seen.push(...page.items.map((s) => s.checkpoint.checkpoint_id));
      if (!page.olderCursor) break;
      p = older(p, page.olderCursor);
    }
    expect(seen).toEqual(all.map((s) => s.checkpoint.checkpoint_id));
    expect(p.cursors).toHaveLength(20);
  });

  it("summarises a checkpoint: step, source, writers, next, run, edit, interrupt", () => {
    const s = summarizeCheckpoint({
      checkpoint: { thread_id: "t", checkpoint_ns: "", checkpoint_id: "c1", checkpoint_map: null },
      metadata: { step: 2, source: "update", writes: { agent: {} }, run_id: "r1" },
      next: ["tools"],
      created_at: "2026-01-01T00:00:00Z",
      tasks: [{ id: "x", name: "tools", error: null, interrupts: [{ value: "ok?" }], checkpoint: null, state: null }],
    });
    expect(s).toEqual({ checkpointId: "c1", step: 2, source: "update", writers: ["agent"], next: ["tools"], runId: "r1", createdAt: "2026-01-01T00:00:00Z", edited: true, interrupted: true });
  });

  it("reads a loop checkpoint's writers from its parent's next when metadata.writes is gone (LangGraph.js 1.x)", () => {
    const cp = (id: string, parent: string | null, next: string[], source = "loop") => ({
      checkpoint: { thread_id: "t", checkpoint_ns: "", checkpoint_id: id, checkpoint_map: null },
      parent_checkpoint: parent ? { thread_id: "t", checkpoint_ns: "", checkpoint_id: parent, checkpoint_map: null } : null,
      metadata: { source, step: 0 },
      next,
      created_at: null,
      tasks: [],
    });
    const history = [cp("c3", "c2", [], "update"), cp("c2", "c1", []), cp("c1", "c0", ["agent"]), cp("c0", null, ["__start__"], "input")];
    const parents = parentsOf(history);
    expect([...parents].map(([k, v]) => [k, v.checkpoint.checkpoint_id])).toEqual([["c3", "c2"], ["c2", "c1"], ["c1", "c0"]]);
    expect(history.map((s) => summarizeCheckpoint(s, parents.get(s.checkpoint.checkpoint_id)).writers)).toEqual([[], ["agent"], [], []]);
  });
});

describe("thread search", () => {
  it("filters this graph's threads by default, with status and metadata pairs", () => {
    const q = buildSearchQuery({ status: "interrupted", metadata: "user=ann, n=3, ok=true", thisGraphOnly: true }, "chat", 2, 25);
    expect(q).toEqual({ ok: true, value: { metadata: { user: "ann", n: 3, ok: true, graph_id: "chat" }, status: "interrupted", limit: 25, offset: 50, sortBy: "updated_at", sortOrder: "desc" } });
    const all = buildSearchQuery(emptyForm, "chat", 0);
    expect(all.ok && all.value.metadata).toEqual({ graph_id: "chat" });
    const none = buildSearchQuery({ ...emptyForm, thisGraphOnly: false }, "chat", 0);
    expect(none.ok && "metadata" in none.value).toBe(false);
  });

  it("takes a JSON object as a metadata filter and says what is wrong with bad input", () => {
    expect(parseMetadataFilter('{"a": {"b": 1}}')).toEqual({ ok: true, value: { a: { b: 1 } } });
    expect(parseMetadataFilter('"x"=1')).toEqual({ ok: true, value: { '"x"': 1 } });
    expect(parseMetadataFilter("novalue")).toEqual({ ok: false, error: 'Metadata filter: "novalue" is not key=value' });
    const bad = parseMetadataFilter("{oops");
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^Metadata filter is not valid JSON/);
    expect(parseJsonObject("[1]", "State")).toEqual({ ok: false, error: "State must be a JSON object" });
    expect(buildSearchQuery({ ...emptyForm, metadata: "=1" }, "g", 0).ok).toBe(false);
  });

  it("finds the A2A context id in the thread's metadata, else in its runs'", () => {
    expect(a2aContextId({ a2a_context_id: "ctx-1" })).toBe("ctx-1");
    expect(a2aContextId({ graph_id: "g" }, [{ metadata: {} }, { metadata: { a2a_context_id: "ctx-2" } }])).toBe("ctx-2");
    expect(a2aContextId({ graph_id: "g" }, [{ metadata: { a2a_context_id: "" } }])).toBeUndefined();
    expect(a2aContextId(undefined)).toBeUndefined();
  });
});

describe("state messages", () => {
  it("are read from LangChain's stored form into native messages", () => {
    const m = asMessages([
      { type: "human", content: "hi", id: "1" },
      { type: "ai", content: "hello", id: "2", tool_calls: [{ id: "c1", name: "search", args: { q: "x" } }] },
      { type: "tool", content: "found", tool_call_id: "c1", id: "3" },
    ]);
    expect(m?.map((x) => x.role)).toEqual(["user", "assistant", "tool"]);
    expect(m?.[1]?.content).toContainEqual({ type: "tool_call", id: "c1", name: "search", args: { q: "x" } });
    expect(asMessages([1, 2])).toBeUndefined();
    expect(asMessages([])).toBeUndefined();
    expect(asMessages("hi")).toBeUndefined();
  });
});
