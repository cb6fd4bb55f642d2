import { describe, expect, it } from "vitest";
import { A2AError, A2A_ERRORS, errorResponse, parseRequest, resultResponse, v03MethodOf, v1MethodOf } from "../../src/agent-server/a2a/jsonrpc.js";

const req = (extra: Record<string, unknown>) => ({ jsonrpc: "2.0", id: "1", method: "message/send", params: {}, ...extra });

describe("A2A JSON-RPC envelope", () => {
  it("reads a v0.3 request and picks the v0.3 dialect by method name", () => {
    const r = parseRequest(req({}));
    expect(r).toMatchObject({ ok: true, id: "1", notification: false, operation: "send", dialect: "v0.3", params: {} });
  });

  it("picks the v1 dialect for PascalCase names, with the same operations", () => {
    for (const [method, operation] of [
      ["SendMessage", "send"],
      ["SendStreamingMessage", "stream"],
      ["GetTask", "get"],
      ["CancelTask", "cancel"],
      ["SubscribeToTask", "resubscribe"],
      ["ListTasks", "list"],
    ] as const) {
      expect(parseRequest(req({ method }))).toMatchObject({ ok: true, dialect: "v1", operation });
    }
    expect(v1MethodOf("resubscribe")).toBe("SubscribeToTask");
    expect(v03MethodOf("resubscribe")).toBe("tasks/resubscribe");
    expect(v03MethodOf("list")).toBeUndefined();
  });

  it("accepts numeric and null ids, and marks a request without id as a notification", () => {
    expect(parseRequest(req({ id: 7 }))).toMatchObject({ ok: true, id: 7 });
    expect(parseRequest(req({ id: null }))).toMatchObject({ ok: true, id: null, notification: false });
    const { id: _omit, ...noId } = req({});
    expect(parseRequest(noId)).toMatchObject({ ok: true, id: null, notification: true });
  });

  it("answers each malformed request with the spec's code and default message", () => {
    const cases: [unknown, boolean, number, unknown][] = [
      [undefined, true, -32700, null], // not JSON
      [[req({})], false, -32600, null], // batch
      ["text", false, -32600, null],
      [req({ jsonrpc: "1.0" }), false, -32600, "1"],
      [req({ method: 42 }), false, -32600, "1"],
      [req({ method: undefined }), false, -32600, "1"],
      [req({ id: { a: 1 } }), false, -32600, null], // object id
      [req({ method: "tasks/explode" }), false, -32601, "1"],
      [req({ params: [1, 2] }), false, -32602, "1"],
      [req({ params: "x" }), false, -32602, "1"],
    ];
    for (const [body, parseFailed, code, id] of cases) {
      const r = parseRequest(body, parseFailed);
      expect(r.ok, JSON.stringify(body)).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe(code);
      expect(r.id).toEqual(id);
      const wire = errorResponse(r.id, r.error);
      expect(wire.jsonrpc).toBe("2.0");
      expect(wire.error.message).toBe(Object.values(A2A_ERRORS).find((e) => e.code === code)!.message);
    }
  });

  it("keeps the default message and puts the specifics in data.detail", () => {
    const wire = errorResponse("9", new A2AError("taskNotFound", "no task abc"));
    expect(wire).toEqual({ jsonrpc: "2.0", id: "9", error: { code: -32001, message: "Task not found", data: { detail: "no task abc" } } });
    expect(errorResponse(1, new A2AError("taskNotCancelable")).error).toEqual({ code: -32002, message: "Task cannot be canceled" });
  });

  it("hides unexpected errors behind -32603", () => {
    expect(errorResponse("1", new Error("database is on fire")).error).toEqual({ code: -32603, message: "Internal error" });
  });

  it("shapes results", () => {
    expect(resultResponse("1", { kind: "task" })).toEqual({ jsonrpc: "2.0", id: "1", result: { kind: "task" } });
  });
});
