/**
 * How revisions of a local deployment fail, get skipped or interrupted: build failures with their
 * logs, agents that never become healthy (DEPLOY_FAILED with the reason), superseded revisions
 * (SKIPPED) and aborted ones (INTERRUPTED, their work stopped).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalDeployer, type LocalRevisionSpec } from "../../src/runtime/local/deployer.js";
import { alive, cleanup, createRepo, scratchDir, sink, TEST_ENV, waitUntil, type TestRepo } from "./local-repo.js";

describe("local deployer: failures, supersede, interrupt", () => {
  let base: string;
  let repo: TestRepo;
  let deployer: LocalDeployer;
  let n = 0;
  const spec = (over: Partial<LocalRevisionSpec> = {}): LocalRevisionSpec => ({
    deploymentId: "dep-2",
    deploymentName: "failing-agent",
    revisionId: `rev-${++n}`,
    source: "hosted_git",
    repoUrl: repo.url,
    repoRef: "main",
    agentConfigPath: "agent/langgraph.json",
    installCommand: "true",
    secrets: [],
    env: TEST_ENV,
    dataDir: path.join(base, "deployment"),
    ...over,
  });

  beforeAll(async () => {
    base = scratchDir("deployer-fail");
    repo = createRepo(base);
    deployer = new LocalDeployer({ deploymentId: "dep-2", stopGraceMs: 2000 });
    await deployer.listen();
  });
  afterAll(async () => {
    await deployer?.stop();
    cleanup(base);
  });

  it("a failing install command → BUILD_FAILED with the last lines as the reason and the output in the build log", async () => {
    const s = sink("QUEUED");
    const r = await deployer.deploy(spec({ installCommand: "echo installing; echo 'E404 no such package' >&2; exit 3" }), s, { initialStatus: "QUEUED" });
    expect(r.status).toBe("BUILD_FAILED");
    expect(s.statuses).toEqual(["QUEUED", "AWAITING_BUILD", "BUILDING", "BUILD_FAILED"]);
    expect(s.reason).toMatch(/install command "echo installing.*" failed with exit code 3: installing \| E404 no such package/);
    expect(s.commitSha).toBe(repo.head());
    expect(s.logs).toContainEqual(expect.objectContaining({ type: "build", line: "installing", level: "INFO" }));
    expect(s.logs).toContainEqual(expect.objectContaining({ type: "build", line: "E404 no such package", level: "ERROR" }));
    expect(s.text("deploy")).toBe("");
  });

  it("a failing build command runs in the config's directory; an unknown ref or config path fails the build too", async () => {
    const build = sink();
    expect((await deployer.deploy(spec({ buildCommand: "test -f hang.json && echo in-agent-dir && exit 7" }), build)).status).toBe("BUILD_FAILED");
    expect(build.text("build")).toContain("in-agent-dir");
    expect(build.reason).toMatch(/build command .* exit code 7/);

    const ref = sink();
    expect((await deployer.deploy(spec({ repoRef: "no-such-branch" }), ref)).status).toBe("BUILD_FAILED");
    expect(ref.reason).toMatch(/git clone failed.*no-such-branch/);

    const config = sink();
    expect((await deployer.deploy(spec({ agentConfigPath: "nope/langgraph.json" }), config)).status).toBe("BUILD_FAILED");
    expect(config.reason).toMatch(/agent_config_path "nope\/langgraph.json" does not exist/);
    const outside = sink();
    expect((await deployer.deploy(spec({ agentConfigPath: "../../langgraph.json" }), outside)).status).toBe("BUILD_FAILED");
    expect(outside.reason).toMatch(/outside the repository/);
  });

  it("an agent that never becomes healthy → DEPLOY_FAILED with LangSmith's timeout reason, its process stopped", async () => {
    const s = sink();
    const r = await deployer.deploy(spec({ agentConfigPath: "agent/hang.json" }), s, { deadlineMs: 3000 });
    expect(r.status).toBe("DEPLOY_FAILED");
    expect(r.reason).toBe("Timeout: Deployment is not ready after 3 seconds.");
    expect(s.statuses.slice(-3)).toEqual(["AWAITING_DEPLOY", "DEPLOYING", "DEPLOY_FAILED"]);
    expect(s.logs).toContainEqual(expect.objectContaining({ type: "deploy", level: "ERROR", line: "DEPLOY_FAILED: Timeout: Deployment is not ready after 3 seconds." }));
    const pid = Number(/started berth serve \(pid (\d+)\)/.exec(s.text("deploy"))![1]);
    expect(alive(pid)).toBe(false);
    // nothing serves the deployment: the proxy says so at once
    const res = await fetch(`${deployer.url}/ok`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/no revision/);
  });

  it("an agent that exits at start → DEPLOY_FAILED with the exit reason", async () => {
    const s = sink();
    const r = await deployer.deploy(spec({ agentConfigPath: "agent/broken.json" }), s, { deadlineMs: 30_000 });
    expect(r.status).toBe("DEPLOY_FAILED");
    expect(r.reason).toMatch(/the agent server exited with code 1 before it was healthy: .*missing\.ts/);
  });

  it("a newer revision supersedes one that has not started (SKIPPED); one already building keeps going", async () => {
    const a = sink();
    const b = sink();
    const c = sink();
    // The first build holds the slot until the test opens the gate (not for a fixed time: on a busy
    // machine a timed build could end before the second revision is queued behind it).
    const gate = path.join(base, "supersede.gate");
    const first = deployer.deploy(spec({ installCommand: `while [ ! -e ${gate} ]; do sleep 0.05; done; exit 5` }), a);
    await a.waitFor("BUILDING");
    const second = deployer.deploy(spec(), b);
    await b.waitFor("AWAITING_BUILD");
    const third = deployer.deploy(spec({ installCommand: "exit 4" }), c);
    writeFileSync(gate, "");
    const [ra, rb, rc] = await Promise.all([first, second, third]);
    expect(rb).toMatchObject({ status: "SKIPPED", reason: `Superseded by revision ${rc.revisionId}.` });
    expect(b.statuses).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "SKIPPED"]);
    expect(b.reason).toBe(`Superseded by revision ${rc.revisionId}.`);
    expect(b.text("build")).not.toMatch(/cloning/); // it never started
    expect(ra.status).toBe("BUILD_FAILED"); // BUILDING cannot be skipped (rules): it finished
    expect(rc.status).toBe("BUILD_FAILED");
    expect(c.reason).toMatch(/exit code 4/);
  });

  it("an aborted revision → INTERRUPTED, and its install command's processes are gone", async () => {
    const s = sink();
    const pidFile = path.join(base, "install.pid");
    const ctl = new AbortController();
    const done = deployer.deploy(spec({ installCommand: writesPidThenSleeps(pidFile) }), s, { signal: ctl.signal });
    const pid = await pidOf(pidFile);
    expect(alive(pid)).toBe(true);
    ctl.abort(new Error("the user interrupted it"));
    const r = await done;
    expect(r.status).toBe("INTERRUPTED");
    expect(r.reason).toBe("Interrupted: the user interrupted it");
    expect(s.statuses.slice(-2)).toEqual(["BUILDING", "INTERRUPTED"]);
    await waitUntil(() => !alive(pid), 30_000, "the install command to be killed");
  });

  it("stop() during a build abandons it without telling the sink, and ends its install command", async () => {
    const s = sink();
    const pidFile = path.join(base, "stop.pid");
    const done = deployer.deploy(spec({ installCommand: writesPidThenSleeps(pidFile) }), s);
    const pid = await pidOf(pidFile);
    expect(alive(pid)).toBe(true);
    const logs = s.logs.length;
    await deployer.stop();
    const r = await done;
    expect(r).toMatchObject({ status: "BUILDING", stopped: true });
    expect(s.status).toBe("BUILDING");
    expect(s.logs.length).toBe(logs);
    await waitUntil(() => !alive(pid), 30_000, "the install command to be killed");
  });
});

/**
 * An install command that records its shell's pid, then sleeps in that same process. The pid file is
 * written under another name and renamed, so it never exists half-written. Tests wait for the file:
 * the build log's "$ <command>" line is written before the command runs, so a word of the command
 * appearing in the log proves nothing.
 */
function writesPidThenSleeps(pidFile: string): string {
  return `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep 60`;
}

async function pidOf(pidFile: string): Promise<number> {
  await waitUntil(() => existsSync(pidFile), 60_000, `the install command to write ${pidFile}`);
  return Number(readFileSync(pidFile, "utf8"));
}
