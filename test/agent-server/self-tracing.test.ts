/**
 * With LANGSMITH_TRACING on, `berth serve` traces its runs to a LangSmith-compatible endpoint —
 * here Berth's own tracing facility — with run, thread, assistant and graph ids in the metadata,
 * and flushes them on shutdown (SIGTERM right after a run must not lose its trace).
 */
import { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import { createTestDatabase, describeBackends, startChild, userMessage } from "../helpers/server.js";
import { startTracingTestServer } from "../helpers/tracing.js";

describeBackends("agent server self-tracing", (backend) => {
  it("traces every run with its ids and flushes before exiting", async () => {
    const tracing = await startTracingTestServer(backend);
    const db = await createTestDatabase(backend);
    const project = `deploy-${backend}`;
    const child = await startChild("serve", db, {
      LANGSMITH_TRACING: "true",
      LANGSMITH_ENDPOINT: tracing.url,
      LANGSMITH_PROJECT: project,
      ...(tracing.apiKey ? { LANGSMITH_API_KEY: tracing.apiKey } : {}),
    });
    try {
      const client = new Client({ apiUrl: child.url!, callerOptions: { maxRetries: 0 } });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("trace me") });
      await client.runs.join(thread.thread_id, run.run_id);
      // stop at once: the SDK batches for 250 ms in the background, so only the flush saves it
      expect(await child.stop("SIGTERM")).toBe(0);

      const roots = (await tracing.api(`/runs?project_name=${project}&is_root=true`)).body.runs;
      expect(roots).toHaveLength(1);
      expect(roots[0]).toMatchObject({
        name: "chat",
        status: "success",
        thread_id: thread.thread_id,
        metadata: { run_id: run.run_id, thread_id: thread.thread_id, assistant_id: run.assistant_id, graph_id: "chat" },
      });
      const tree = (await tracing.api(`/traces/${roots[0].trace_id}`)).body;
      expect(tree.totals.run_count).toBeGreaterThan(1);
      expect(tree.totals.llm_count).toBeGreaterThanOrEqual(1);
    } finally {
      await child.stop("SIGKILL");
      await db.drop();
      await tracing.close();
    }
  });
});
