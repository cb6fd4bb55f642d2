/**
 * The console is typed against the OpenAPI documents of the control plane and the tracing API:
 * the generated files must be current, the served documents must be the ones they were generated
 * from, and the response schemas the documents carry must be checked against real answers.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { generateConsoleApiTypes } from "../../scripts/gen-console-api.js";
import { controlPlaneOpenApi } from "../../src/control-plane/api/app.js";
import { ApiRouter, Reply, errorHandler, responseProblems } from "../../src/shared/http.js";
import { silentLogger } from "../../src/shared/logging.js";
import { tracingOpenApi } from "../../src/tracing/api/app.js";
import * as TracingResponses from "../../src/tracing/api/response-schemas.js";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize.js";
import { loadMessageFixtures } from "../fixtures/messages/load.js";
import { startControlPlaneTestServer, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { startTracingTestServer, type TracingTestServer } from "../helpers/tracing.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The names src/console/api/types.ts refers to. */
const CONTROL_PLANE_NAMES = ["Whoami", "Deployment", "Revision", "LogPage", "LogEntry", "DeploymentPatchRequest", "DeploymentList", "RevisionList", "Listener", "ListenerList"];
const TRACING_NAMES = [
  "Project", "ProjectStats", "RunSummary", "RunDetail", "TraceTree", "TraceNode", "TraceTotals", "StatsOverTime", "ThreadSummary",
  "ThreadTurns", "ModelPrice", "NativeMessage", "NativeBlock", "RenderedMessages", "ProjectList", "RunList", "ThreadList", "ModelPriceList",
];

describe("generated console API types", () => {
  it("are current: regenerating gives the committed files", async () => {
    const generated = await generateConsoleApiTypes();
    expect(Object.keys(generated).length).toBe(2);
    for (const [file, content] of Object.entries(generated)) {
      const committed = await readFile(path.join(ROOT, file), "utf8").catch(() => "");
      if (committed !== content) expect.fail(`${file} is stale: run \`npm run gen:api\` and commit the result`);
    }
  });

  it("name every shape the console refers to", async () => {
    const generated = await generateConsoleApiTypes();
    for (const name of CONTROL_PLANE_NAMES) expect(generated["src/console/api/control-plane.gen.ts"]).toContain(`        ${name}: `);
    for (const name of TRACING_NAMES) expect(generated["src/console/api/tracing.gen.ts"]).toContain(`        ${name}: `);
  });
});

describe("the OpenAPI documents", () => {
  it("describe responses with named, referenced schemas (a recursive tree included)", () => {
    const cp = controlPlaneOpenApi() as any;
    expect(Object.keys(cp.components.schemas)).toEqual(expect.arrayContaining([...CONTROL_PLANE_NAMES, "HTTPValidationError", "ErrorDetail"]));
    expect(cp.paths["/v2/deployments/{deployment_id}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Deployment" });
    expect(cp.paths["/v2/deployments"].post.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Deployment" });
    expect(cp.paths["/v2/deployments/{deployment_id}"].patch.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/DeploymentPatchRequest" });
    expect(cp.paths["/v2/deployments/{deployment_id}"].delete.responses["204"].content).toBeUndefined();
    expect(cp.paths["/v2/deployments"].post.responses["409"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorDetail" });

    const tr = tracingOpenApi() as any;
    expect(Object.keys(tr.components.schemas)).toEqual(expect.arrayContaining(TRACING_NAMES));
    expect(tr.components.schemas.TraceNode.properties.children).toEqual({ type: "array", items: { $ref: "#/components/schemas/TraceNode" } });
    expect(tr.paths["/traces/{trace_id}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/TraceTree" });
    expect(tr.components.schemas.RunDetail.properties.messages.anyOf).toContainEqual({ $ref: "#/components/schemas/RenderedMessages" });
    // every reference resolves
    for (const doc of [cp, tr]) {
      for (const ref of JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? []) {
        const name = /#\/components\/schemas\/([^"]+)"/.exec(ref)?.[1];
        expect(name && doc.components.schemas[name], ref).toBeTruthy();
      }
    }
  });

  it("refuse an unnamed recursive schema and one name for two different schemas", () => {
    const Node: z.ZodType = z.object({ get children() { return z.array(Node); } });
    const r = new ApiRouter();
    r.add({ method: "get", path: "/tree", tag: "t", summary: "s", response: Node }, () => ({ children: [] }));
    expect(() => r.openapi({ title: "t", version: "1" })).toThrow(/recursive schema needs a name/);

    const twice = new ApiRouter();
    twice.add({ method: "get", path: "/a", tag: "t", summary: "s", response: z.object({ a: z.string() }).meta({ id: "Thing" }) }, () => ({ a: "" }));
    twice.add({ method: "get", path: "/b", tag: "t", summary: "s", response: z.object({ b: z.string() }).meta({ id: "Thing" }) }, () => ({ b: "" }));
    expect(() => twice.openapi({ title: "t", version: "1" })).toThrow(/"Thing" has two different JSON Schemas/);
  });
});

describe("response checking while tests run", () => {
  const Item = z.object({ id: z.string(), count: z.number(), meta: z.record(z.string(), z.unknown()) });

  it("reports wrong types and keys the schema does not declare, as the client would receive them", () => {
    expect(responseProblems(Item, { id: "a", count: 1, meta: { anything: { goes: true } } })).toEqual([]);
    expect(responseProblems(Item, { id: "a", count: "1", meta: {} })).toEqual([expect.stringMatching(/^count: /)]);
    expect(responseProblems(z.object({ items: z.array(Item) }), { items: [{ id: "a", count: 1, meta: {}, secret: "x" }] })).toEqual(["items.0.secret: not in the documented schema"]);
    // undefined disappears on the wire, Dates become strings
    expect(responseProblems(z.object({ at: z.string(), gone: z.string().optional() }), { at: new Date(0), gone: undefined })).toEqual([]);
  });

  let url = "";
  let close = () => {};
  beforeAll(async () => {
    const router = new ApiRouter();
    router.add({ method: "get", path: "/good", tag: "t", summary: "s", response: Item }, () => ({ id: "a", count: 1, meta: {} }));
    router.add({ method: "get", path: "/bad", tag: "t", summary: "s", response: Item }, () => ({ id: "a", count: 1, meta: {}, extra: 1 }));
    router.add({ method: "post", path: "/bad-created", tag: "t", summary: "s", response: Item, responses: { "201": "Created" } }, () => new Reply(201, { id: 1 }));
    const app = express();
    router.mount(app);
    app.use(errorHandler(silentLogger));
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it("fails a request whose answer does not match with a 500 naming the mismatch", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect((await fetch(`${url}/good`)).status).toBe(200);
      const bad = await fetch(`${url}/bad`);
      expect(bad.status).toBe(500);
      expect(((await bad.json()) as { detail: string }).detail).toBe("response does not match its documented schema: extra: not in the documented schema");
      const created = await fetch(`${url}/bad-created`, { method: "POST" });
      expect(created.status).toBe(500);
      expect(((await created.json()) as { detail: string }).detail).toMatch(/^response does not match its documented schema: id: .*count: /);
      expect(quiet).toHaveBeenCalledTimes(2);
    } finally {
      quiet.mockRestore();
    }
  });
});

describe("the served documents", () => {
  let cp: ControlPlaneTestServer | undefined;
  let tr: TracingTestServer | undefined;
  beforeAll(async () => {
    [cp, tr] = await Promise.all([startControlPlaneTestServer("pglite"), startTracingTestServer("pglite")]);
  });
  afterAll(async () => {
    await Promise.all([cp?.close(), tr?.close()]);
  });

  it("are the documents the console's types are generated from", async () => {
    const cpDoc = (await (await fetch(`${cp!.url}/openapi.json`)).json()) as any;
    expect(Object.keys(cpDoc.components.schemas)).toEqual(expect.arrayContaining(CONTROL_PLANE_NAMES));
    const built = controlPlaneOpenApi() as any;
    expect(cpDoc.components).toEqual(built.components);
    expect(cpDoc.paths).toEqual(built.paths);

    const trDoc = (await (await fetch(`${tr!.url}/openapi.json`)).json()) as any;
    expect(trDoc.servers).toEqual([{ url: "/tracing" }]);
    expect(Object.keys(trDoc.components.schemas)).toEqual(expect.arrayContaining(TRACING_NAMES));
    const builtTracing = tracingOpenApi() as any;
    expect(trDoc.components).toEqual(builtTracing.components);
    expect(trDoc.paths).toEqual(builtTracing.paths);
  });
});

describe("the documented message shapes", () => {
  it("hold what the normaliser makes of every shared message fixture", () => {
    for (const f of loadMessageFixtures()) {
      const n = normalizeLlmRun(f.inputs, f.outputs);
      const rendered = n ? { rendered: true, format: n.format, messages: n.messages, warnings: n.warnings } : { rendered: false, reason: "shown raw" };
      expect(responseProblems(TracingResponses.RenderedMessages, rendered), f.name).toEqual([]);
    }
  });
});
