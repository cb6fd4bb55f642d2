/**
 * The local runtime end to end on the embedded database (PGlite): real git repositories, real
 * `berth serve` child processes, the deployment called through its stable proxy URL with the SDK.
 * The tests run in order and share one deployment, as a user's revisions would.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { happyPath } from "../../src/control-plane/rules/index.js";
import { LocalDeployer, type LocalRevisionSpec } from "../../src/runtime/local/deployer.js";
import type { MemoryRevisionSink } from "../../src/runtime/local/memory-sink.js";
import { alive, cleanup, createRepo, runningRun, scratchDir, sink, TEST_ENV, type TestRepo } from "./local-repo.js";

describe("local deployer [pglite]", () => {
  let base: string;
  let repo: TestRepo;
  let deployer: LocalDeployer;
  let client: Client;
  let n = 0;
  const spec = (over: Partial<LocalRevisionSpec> = {}): LocalRevisionSpec => ({
    deploymentId: "dep-1",
    deploymentName: "my-agent",
    revisionId: `rev-${++n}`,
    source: "hosted_git",
    repoUrl: repo.url,
    repoRef: "main",
    agentConfigPath: "agent/langgraph.json",
    installCommand: "true",
    secrets: [{ name: "GREETING", value: "hello" }],
    env: TEST_ENV,
    dataDir: `${base}/deployment`,
    ...over,
  });
  const sinks: MemoryRevisionSink[] = [];
  const greetingOf = (state: unknown) => (state as { greeting: string }).greeting;

  beforeAll(async () => {
    base = scratchDir("deployer");
    repo = createRepo(base);
    deployer = new LocalDeployer({ deploymentId: "dep-1", stopGraceMs: 10_000, holdMs: 60_000 });
    client = new Client({ apiUrl: await deployer.listen() });
  });
  afterAll(async () => {
    await deployer?.stop();
    cleanup(base);
  });

  let threadId: string;

  it("deploys a revision to DEPLOYED with its commit sha, build and deploy logs", async () => {
    const s = sink();
    sinks.push(s);
    const r = await deployer.deploy(spec(), s);
    expect(r).toMatchObject({ revisionId: "rev-1", status: "DEPLOYED", commitSha: repo.head() });
    expect(s.statuses).toEqual(happyPath());
    expect(s.commitSha).toBe(repo.head());
    expect(s.text("build")).toContain(`checked out ${repo.head()}`);
    expect(s.text("build")).toContain("$ true");
    expect(s.text("deploy")).toMatch(/database ready/);
    expect(s.text("deploy")).toMatch(/healthy after/);
    expect(deployer.activeRevisionId).toBe("rev-1");
    expect((await fetch(`${deployer.url}/ok`)).status).toBe(200);
  });

  it("serves the deployment through the proxy: threads, a waited run and a streamed run", async () => {
    const thread = await client.threads.create();
    threadId = thread.thread_id;
    const state = await client.runs.wait(threadId, "env", { input: {} });
    expect(greetingOf(state)).toBe("hello");

    const events: { event: string; data: unknown }[] = [];
    for await (const chunk of client.runs.stream(threadId, "env", { input: {}, streamMode: "updates", config: { configurable: { delay_ms: 200 } } })) {
      events.push(chunk);
    }
    const updates = events.filter((e) => e.event === "updates").map((e) => Object.keys(e.data as object)[0]);
    expect(updates).toEqual(["read", "wait"]);
    // query strings pass through
    const history = await client.threads.getHistory(threadId, { limit: 1 });
    expect(history).toHaveLength(1);
  });

  it("rolls out a new revision (changed secret): in-flight runs finish, threads survive, the graph sees the new value", async () => {
    const oldPid = deployer.activeProcess!.pid;
    // a run in flight on the old process while the new revision rolls out
    const inFlight = (await runningRun(client, threadId, { delayMs: 2500 })).done;
    const s = sink();
    sinks.push(s);
    const deploying = deployer.deploy(spec({ secrets: [{ name: "GREETING", value: "bonjour" }] }), s);
    // a request during the swap is held by the proxy, not failed
    await s.waitFor("AWAITING_DEPLOY");
    const during = client.threads.get(threadId);

    expect(greetingOf(await inFlight)).toBe("hello");
    expect((await deploying).status).toBe("DEPLOYED");
    expect((await during).thread_id).toBe(threadId);
    expect(alive(oldPid)).toBe(false);
    expect(s.text("deploy")).toMatch(/PGlite\) admits one process at a time: stopping revision rev-1 first/);

    const state = await client.runs.wait(threadId, "env", { input: {} });
    expect(greetingOf(state)).toBe("bonjour");
    expect((await client.threads.getHistory(threadId)).length).toBeGreaterThan(3); // the old runs' checkpoints
    expect(deployer.activeRevisionId).toBe(`rev-${n}`);
    // checkouts no process needs any more are removed
    expect(readdirSync(path.join(base, "deployment/revisions"))).toEqual([`rev-${n}`]);
  });

  it("restarts a crashed agent server with backoff; the proxy holds requests and serves again", async () => {
    const s = sinks.at(-1)!;
    const { pid } = deployer.activeProcess!;
    process.kill(pid, "SIGKILL");
    // held by the proxy until the restarted process is healthy
    const thread = await client.threads.get(threadId);
    expect(thread.thread_id).toBe(threadId);
    const after = deployer.activeProcess!;
    expect(after.pid).not.toBe(pid);
    expect(after.restarts).toBe(1);
    expect(s.text("deploy")).toMatch(/was killed \(SIGKILL\) unexpectedly/);
    expect(s.text("deploy")).toMatch(/restarting in 1 s \(attempt 1\)/);
    expect(s.text("deploy")).toMatch(/serving traffic again/);
    expect(s.status).toBe("DEPLOYED"); // a crash is not a new status of the revision
  });

  it("keeps the previous revision when a new one never becomes healthy (PGlite: it is started again)", async () => {
    const s = sink();
    const r = await deployer.deploy(spec({ agentConfigPath: "agent/broken.json" }), s, { deadlineMs: 30_000 });
    expect(r.status).toBe("DEPLOY_FAILED");
    expect(r.reason).toMatch(/exited with code 1 before it was healthy/);
    expect(s.text("deploy")).toMatch(/starting revision rev-2 again/);
    // the previous revision serves again (the proxy held the request meanwhile)
    const state = await client.runs.wait(threadId, "env", { input: {} });
    expect(greetingOf(state)).toBe("bonjour");
    expect(deployer.activeRevisionId).toBe("rev-2");
  });

  it("stop() ends the proxy and the process and tells the sinks nothing", async () => {
    const { pid } = deployer.activeProcess!;
    const before = sinks.map((s) => [s.statuses.length, s.logs.length]);
    await deployer.stop();
    expect(alive(pid)).toBe(false);
    await expect(fetch(`${deployer.url}/ok`)).rejects.toThrow();
    expect(sinks.map((s) => [s.statuses.length, s.logs.length])).toEqual(before);
    await expect(deployer.deploy(spec(), sink())).rejects.toThrow(/stopped/);
  });
});
