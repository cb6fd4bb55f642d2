/**
 * OTLP spans without LangSmith's dotted order whose parent arrives late, or never: through the
 * official protobuf exporter, an orphaned subtree is stored well-formed (ordered, with a dotted
 * order of its own) and is linked under its parent, with the parent's dotted order, once the
 * parent is exported. Until then the orphan counts as a root in run lists (`is_root`, Berth's
 * and LangSmith's, through the SDK's listRuns), and stops counting once its parent arrives.
 */
import { randomUUID } from "node:crypto";
import { ROOT_CONTEXT, trace, type Span, type Tracer } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

const T0 = Date.parse("2026-11-21T09:00:00.000Z");
const SEGMENT = /^\d{8}T\d{6}\d{6}Z[0-9a-f-]{36}$/;

describeBackends("OTLP: orphaned spans and late parents", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s));
  const rootsOf = async (project: string) => {
    const berth = ((await server.api(`/runs?project_name=${encodeURIComponent(project)}&is_root=true`)).body.runs as any[]).map((r) => r.name).sort();
    const sdk: string[] = [];
    for await (const r of server.client().listRuns({ projectName: project, isRoot: true })) sdk.push(r.name);
    const nonRoots = ((await server.api(`/runs?project_name=${encodeURIComponent(project)}&is_root=false`)).body.runs as any[]).map((r) => r.name).sort();
    const filtered = ((await server.api("/runs/query", { method: "POST", body: JSON.stringify({ session: [await projectId(project)], filter: "eq(is_root, true)" }) })).body.runs as any[]).map((r) => r.name).sort();
    expect(sdk.sort(), "SDK listRuns({isRoot})").toEqual(berth);
    expect(filtered, "filter eq(is_root, true)").toEqual(berth);
    return { roots: berth, nonRoots };
  };
  const projectId = async (name: string) => (await server.api(`/sessions?name=${encodeURIComponent(name)}`)).body[0].id as string;

  it("an orphan subtree gets its own dotted order, and joins its parent's when the parent arrives", async () => {
    const project = `otel-orphans-${backend}-${randomUUID().slice(0, 6)}`;
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "orphans" }), spanProcessors: [new SimpleSpanProcessor(memory)] });
    const tracer: Tracer = provider.getTracer("orphans");
    // root → step → (llm, tool): the exporter sends spans as they end, children first
    const root: Span = tracer.startSpan("agent", { startTime: T0 });
    const step = tracer.startSpan("step", { startTime: T0 + 10 }, trace.setSpan(ROOT_CONTEXT, root));
    const inStep = trace.setSpan(ROOT_CONTEXT, step);
    tracer.startSpan("llm", { startTime: T0 + 20 }, inStep).end(T0 + 30);
    tracer.startSpan("tool", { startTime: T0 + 40 }, inStep).end(T0 + 50);
    step.end(T0 + 60);
    root.end(T0 + 100);
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    const byName = (n: string) => spans.find((s) => s.name === n)!;
    const exporter = new ProtoExporter({ url: `${server.url}/otel/v1/traces`, headers: { ...(server.apiKey ? { "x-api-key": server.apiKey } : {}), "Langsmith-Project": project } });

    // 1. the step's children only: their parent is missing
    expect((await exportSpans(exporter, [byName("llm"), byName("tool")])).code).toBe(ExportResultCode.SUCCESS);
    const runsOf = async () => ((await server.api(`/runs?project_name=${encodeURIComponent(project)}`)).body.runs as any[]) ?? [];
    let runs = await runsOf();
    expect(runs.map((r) => r.name).sort()).toEqual(["llm", "tool"]);
    for (const r of runs) {
      expect(r.dotted_order, r.name).toMatch(SEGMENT); // a top of its own, well-formed
      expect(r.dotted_order.endsWith(r.id)).toBe(true);
    }
    const traceId = runs[0].trace_id;
    const tree = (await server.api(`/traces/${traceId}`)).body;
    expect(tree.runs.map((r: any) => r.name)).toEqual(["llm", "tool"]); // in start order
    expect(await rootsOf(project)).toEqual({ roots: ["llm", "tool"], nonRoots: [] }); // their parent never arrived (yet)

    // 2. the step arrives (its own parent still missing): the two are linked under it
    await exportSpans(exporter, [byName("step")]);
    runs = await runsOf();
    const step1 = runs.find((r) => r.name === "step");
    expect(step1.dotted_order).toMatch(SEGMENT);
    for (const name of ["llm", "tool"]) {
      const r = runs.find((x) => x.name === name);
      expect(r.parent_run_id).toBe(step1.id);
      expect(r.dotted_order).toBe(`${step1.dotted_order}.${r.dotted_order.split(".").at(-1)}`);
    }
    expect(await rootsOf(project)).toEqual({ roots: ["step"], nonRoots: ["llm", "tool"] });

    // 3. the root arrives last: every run's order starts at the root, ancestors are named
    await exportSpans(exporter, [byName("agent")]);
    runs = await runsOf();
    const top = runs.find((r) => r.name === "agent");
    expect(top.parent_run_id).toBeNull();
    expect(await rootsOf(project)).toEqual({ roots: ["agent"], nonRoots: ["llm", "step", "tool"] });
    for (const r of runs) expect(r.dotted_order.startsWith(top.dotted_order), r.name).toBe(true);
    const llm = runs.find((r) => r.name === "llm");
    expect(llm.dotted_order.split(".")).toHaveLength(3);
    expect((await server.api(`/runs/${llm.id}`)).body.parent_run_ids).toEqual([top.id, step1.id]);
    const whole = (await server.api(`/traces/${traceId}`)).body;
    expect(whole.root_run_id).toBe(top.id);
    expect(whole.runs[0].children[0].children.map((c: any) => c.name)).toEqual(["llm", "tool"]);
    // the LangSmith API's ordering by tree reads the same
    const asc = (await server.api("/runs/query", { method: "POST", body: JSON.stringify({ trace: traceId, select: ["name", "dotted_order"] }) })).body.runs as any[];
    expect(asc.map((r) => r.dotted_order).sort().map((d: string) => runs.find((r) => r.dotted_order === d)!.name)).toEqual(["agent", "step", "llm", "tool"]);
    await provider.shutdown();
  });
});
