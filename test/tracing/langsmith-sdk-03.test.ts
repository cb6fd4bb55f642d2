/**
 * The older `langsmith` SDK line (0.3.x, installed as `langsmith-0-3`) against Berth, on both
 * backends: tracing with its `traceable`, then the read and management calls scripts written for
 * it make — projects, listRuns with filters, readRun with children, run stats, feedback, sharing.
 */
import { randomUUID } from "node:crypto";
import { Client, type Run } from "langsmith-0-3";
import { traceable } from "langsmith-0-3/traceable";
import { beforeAll, expect, it } from "vitest";
import { describeBackends, eventually } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

process.env.LANGSMITH_TRACING = "true";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describeBackends("LangSmith API through the langsmith SDK 0.3.x", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  const projectName = `ls-03-${randomUUID().slice(0, 8)}`;
  let root: Run;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = new Client({ apiUrl: s.url, apiKey: s.apiKey, autoBatchTracing: true });
  });

  beforeAll(async () => {
    const generate = traceable(
      async (q: string) => ({ messages: [{ role: "assistant", content: `answer to ${q}` }], usage_metadata: { input_tokens: 12, output_tokens: 8, total_tokens: 20 } }),
      { name: "generate", run_type: "llm", client, project_name: projectName },
    );
    const pipeline = traceable(async (q: string) => generate(q), { name: "pipeline", client, project_name: projectName, tags: ["beta"] });
    await pipeline("first");
    await client.awaitPendingTraceBatches();
    root = await eventually(async () => (await all(client.listRuns({ projectName, isRoot: true })))[0]);
  });

  it("projects: create, read, has, list, update, delete", async () => {
    const name = `p03-${randomUUID().slice(0, 8)}`;
    const created = await client.createProject({ projectName: name, description: "first" });
    expect((await client.readProject({ projectName: name })).id).toBe(created.id);
    expect(await client.hasProject({ projectName: name })).toBe(true);
    expect((await all(client.listProjects({ nameContains: name }))).map((p) => p.id)).toEqual([created.id]);
    expect((await client.updateProject(created.id, { name, description: "second" })).description).toBe("second");
    await client.deleteProject({ projectId: created.id });
    expect(await client.hasProject({ projectName: name })).toBe(false);
    expect((await client.readProject({ projectName, includeStats: true })).total_tokens).toBe(20);
  });

  it("listRuns with filters, readRun with children, getRunStats", async () => {
    const names = async (props: Parameters<Client["listRuns"]>[0]) => (await all(client.listRuns({ projectName, ...props }))).map((r) => r.name).sort();
    expect(await names({})).toEqual(["generate", "pipeline"]);
    expect(await names({ runType: "llm" })).toEqual(["generate"]);
    expect(await names({ filter: 'has(tags, "beta")', isRoot: true })).toEqual(["pipeline"]);
    const run = await client.readRun(root.id, { loadChildRuns: true });
    expect(run.child_runs?.map((c) => c.name)).toEqual(["generate"]);
    expect(await client.getRunStats({ projectNames: [projectName] })).toMatchObject({ run_count: 2, total_tokens: 20 });
  });

  it("feedback and sharing", async () => {
    const fb = await client.createFeedback(root.id, "correctness", { score: 1, comment: "right" });
    expect((await all(client.listFeedback({ runIds: [root.id] }))).map((f) => f.id)).toEqual([fb.id]);
    const url = await client.shareRun(root.id);
    const token = url.split("/public/")[1]!.split("/")[0]!;
    expect((await client.listSharedRuns(token)).map((r) => r.name).sort()).toEqual(["generate", "pipeline"]);
    expect((await fetch(`${server.url}/public/${token}/run`)).status).toBe(200);
    await client.unshareRun(root.id);
    expect((await fetch(`${server.url}/public/${token}/run`)).status).toBe(404);
  });
});
