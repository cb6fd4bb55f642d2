/**
 * The local runtime with a Postgres DATABASE_URI from the control plane: both processes can share
 * the database, so a new revision starts next to the old one and takes traffic without downtime
 * (compare the PGlite suite, where the old process has to stop first).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalDeployer, type LocalRevisionSpec } from "../../src/runtime/local/deployer.js";
import { createScratchDatabase } from "../helpers/postgres.js";
import { servicesUp } from "../helpers/server.js";
import { POSTGRES_ADMIN_URI } from "../helpers/services.js";
import { alive, cleanup, createRepo, runningRun, scratchDir, sink, TEST_ENV, waitUntil, type TestRepo } from "./local-repo.js";

(servicesUp() ? describe : describe.skip)("local deployer [postgres]", () => {
  let base: string;
  let repo: TestRepo;
  let deployer: LocalDeployer;
  let db: { uri: string; drop(): Promise<void> };
  let n = 0;
  const spec = (greeting: string): LocalRevisionSpec => ({
    deploymentId: "dep-pg",
    deploymentName: "pg-agent",
    revisionId: `rev-${++n}`,
    source: "hosted_git",
    repoUrl: repo.url,
    repoRef: "main",
    agentConfigPath: "agent/langgraph.json",
    installCommand: "true",
    secrets: [{ name: "GREETING", value: greeting }],
    env: { ...TEST_ENV, DATABASE_URI: db.uri },
    dataDir: path.join(base, "deployment"),
  });

  beforeAll(async () => {
    base = scratchDir("deployer-pg");
    repo = createRepo(base);
    db = await createScratchDatabase(POSTGRES_ADMIN_URI, "berth_local");
    deployer = new LocalDeployer({ deploymentId: "dep-pg", stopGraceMs: 10_000 });
  });
  afterAll(async () => {
    await deployer?.stop();
    await db?.drop();
    cleanup(base);
  });

  it("swaps revisions without downtime: the new process starts beside the old, which drains and stops", async () => {
    const first = sink();
    expect((await deployer.deploy(spec("hello"), first)).status).toBe("DEPLOYED");
    const client = new Client({ apiUrl: deployer.url });
    const thread = await client.threads.create();
    const oldPid = deployer.activeProcess!.pid;

    // probe the deployment all through the swap
    let probing = true;
    const failures: string[] = [];
    let probes = 0;
    const probe = (async () => {
      while (probing) {
        const res = await fetch(`${deployer.url}/ok`).catch((err: Error) => ({ status: err.message }));
        probes++;
        if (res.status !== 200) failures.push(String(res.status));
        await new Promise((r) => setTimeout(r, 25));
      }
    })();

    // the run in flight on the old process ends when the test says so: after the swap
    const gateFile = path.join(base, "in-flight.gate");
    const inFlight = (await runningRun(client, thread.thread_id, { gateFile })).done;
    const second = sink();
    expect((await deployer.deploy(spec("bonjour"), second)).status).toBe("DEPLOYED");
    expect(alive(oldPid)).toBe(true); // still finishing the run in flight
    writeFileSync(gateFile, "");
    expect(second.text("deploy")).not.toMatch(/admits one process/);
    expect(second.text("deploy")).toMatch(/Postgres database/);

    expect((await inFlight) as { greeting: string }).toMatchObject({ greeting: "hello" });
    const state = (await client.runs.wait(thread.thread_id, "env", { input: {} })) as { greeting: string };
    expect(state.greeting).toBe("bonjour");
    await waitUntil(() => !alive(oldPid), 20_000, "the old process to stop");
    probing = false;
    await probe;
    expect(probes).toBeGreaterThan(20);
    expect(failures).toEqual([]);
    expect(first.text("deploy")).toMatch(/stopping the agent server \(pid \d+\) gracefully/);
  });
});
