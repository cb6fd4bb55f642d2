import { describe, expect, it } from "vitest";
import type { LogEntry, Revision } from "../../src/console/api/types";
import {
  appendPage,
  emptyBuffer,
  followDelay,
  FOLLOW_MS,
  isAtBottom,
  nextCursor,
} from "../../src/console/deployments/logs-follow";
import { effectiveSpecGroups } from "../../src/console/deployments/resources";
import { describeSecretChanges, draftsFrom, patchSecrets, secretProblems } from "../../src/console/deployments/secrets";
import {
  deploymentNeedsPolling,
  deploymentUrl,
  describeSource,
  isDeploymentTransitional,
  isRevisionInProgress,
  rolloutOf,
  shortId,
} from "../../src/console/deployments/status";
import { revisionSteps, revisionTimeline } from "../../src/console/deployments/timeline";
import { createBody, revisionFields, revisionPatch } from "../../src/console/deployments/bodies";

const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";
const C = "cccccccc-0000-4000-8000-000000000003";

function revision(id: string, status: Revision["status"], created: string, updated = created, extra: Partial<Revision> = {}): Revision {
  return {
    id,
    deployment_id: "dddddddd-0000-4000-8000-000000000000",
    created_at: created,
    updated_at: updated,
    status,
    source: "hosted_git",
    source_revision_config: { repo_ref: "main", agent_config_path: "examples/langgraph.json", repo_commit_sha: "0123456789abcdef0123" },
    status_reason: null,
    status_history: [],
    is_active: false,
    superseded: false,
    ...extra,
  };
}

const line = (id: number, message = `line ${id}`): LogEntry => ({ id: String(id), timestamp: "2025-01-01T00:00:00.000Z", level: "INFO", message });

describe("status", () => {
  it("follows the server's terminal statuses: in progress until DEPLOYED or a failure", () => {
    for (const s of ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "UNKNOWN"]) expect(isRevisionInProgress(s), s).toBe(true);
    for (const s of ["DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED", "SKIPPED", "INTERRUPTED"]) expect(isRevisionInProgress(s), s).toBe(false);
    // a status this console does not know must not make a page poll forever
    expect(isRevisionInProgress("SOMETHING_NEW")).toBe(false);
    expect(isRevisionInProgress(undefined)).toBe(false);
  });

  it("treats teardown as transitional; waiting for the database only moves with a rollout", () => {
    expect(isDeploymentTransitional("AWAITING_DELETE")).toBe(true);
    expect(isDeploymentTransitional("AWAITING_DATABASE")).toBe(false);
    expect(deploymentNeedsPolling("AWAITING_DATABASE", "rolling-out")).toBe(true);
    // every revision failed: nothing will change until someone acts
    expect(deploymentNeedsPolling("AWAITING_DATABASE", "failed")).toBe(false);
    expect(isDeploymentTransitional("READY")).toBe(false);
    expect(isDeploymentTransitional("UNUSED")).toBe(false);
  });

  it("tells a rollout in progress from a failed newer revision", () => {
    expect(rolloutOf({ latest_revision_id: A, active_revision_id: A }, "DEPLOYED")).toBe("current");
    expect(rolloutOf({ latest_revision_id: null, active_revision_id: null }, undefined)).toBe("none");
    expect(rolloutOf({ latest_revision_id: B, active_revision_id: A }, undefined)).toBe("unchecked");
    expect(rolloutOf({ latest_revision_id: B, active_revision_id: A }, "BUILDING")).toBe("rolling-out");
    expect(rolloutOf({ latest_revision_id: B, active_revision_id: A }, "BUILD_FAILED")).toBe("failed");
    expect(rolloutOf({ latest_revision_id: B, active_revision_id: null }, "DEPLOY_FAILED")).toBe("failed");
    expect(rolloutOf({ latest_revision_id: B, active_revision_id: A }, "SKIPPED")).toBe("stopped");
  });

  it("polls a list only while something can still change", () => {
    expect(deploymentNeedsPolling("READY", "current")).toBe(false);
    expect(deploymentNeedsPolling("READY", "failed")).toBe(false);
    expect(deploymentNeedsPolling("READY", "rolling-out")).toBe(true);
    expect(deploymentNeedsPolling("READY", "unchecked")).toBe(true);
    expect(deploymentNeedsPolling("AWAITING_DELETE", "current")).toBe(true);
  });

  it("shows the deployment URL only when it is http(s)", () => {
    expect(deploymentUrl({ source_config: { custom_url: "http://127.0.0.1:4321" } })).toBe("http://127.0.0.1:4321");
    expect(deploymentUrl({ source_config: { custom_url: "javascript:alert(1)" } })).toBeNull();
    expect(deploymentUrl({ source_config: {} })).toBeNull();
  });

  it("describes the source and shortens ids", () => {
    expect(describeSource({ source: "external_container", source_revision_config: { image_uri: "r/img:1" } })).toBe("r/img:1");
    expect(describeSource({ source: "hosted_git", source_config: { repo_url: "file:///repo" }, source_revision_config: { repo_ref: "main", agent_config_path: "a.json" } })).toBe(
      "file:///repo@main · a.json",
    );
    expect(shortId(A)).toBe("aaaaaaaa");
    expect(shortId(null)).toBe("—");
  });
});

describe("timeline", () => {
  it("orders revisions newest first and marks the active and the latest one", () => {
    const rows = revisionTimeline(
      [
        revision(A, "DEPLOYED", "2025-01-01T00:00:00Z", "2025-01-01T00:01:00Z", { is_active: true }),
        revision(C, "BUILDING", "2025-01-03T00:00:00Z", "2025-01-03T00:00:05Z"),
        revision(B, "BUILD_FAILED", "2025-01-02T00:00:00Z", "2025-01-02T00:00:30Z", { status_reason: "npm ci failed" }),
      ],
      { latest_revision_id: C },
    );
    expect(rows.map((r) => r.id)).toEqual([C, B, A]);
    expect(rows.map((r) => [r.isLatest, r.isActive, r.isSuperseded])).toEqual([
      [true, false, false],
      [false, false, false],
      [false, true, false],
    ]);
    expect(rows[0]!.inProgress).toBe(true);
    expect(rows[1]!.failed).toBe(true);
    expect(rows[1]!.statusReason).toBe("npm ci failed");
    expect(rows[2]!.commitSha).toBe("0123456789abcdef0123");
    // the newest revision is not offered for redeploy; the older ones are
    expect(rows.map((r) => r.canRedeploy)).toEqual([false, true, true]);
  });

  it("without server history: created, then the current status at its last change, marked incomplete", () => {
    const { steps, complete } = revisionSteps(revision(A, "DEPLOYED", "2025-01-01T00:00:00Z", "2025-01-01T00:01:00Z"));
    expect(steps).toEqual([
      { status: "created", at: "2025-01-01T00:00:00Z" },
      { status: "DEPLOYED", at: "2025-01-01T00:01:00Z", reason: null },
    ]);
    expect(complete).toBe(false);
    // a revision still as it was stored has one step
    expect(revisionSteps(revision(B, "QUEUED", "2025-01-01T00:00:00Z")).steps).toHaveLength(1);
  });

  it("uses a status history when the server sends one", () => {
    const withHistory = {
      ...revision(A, "DEPLOYED", "2025-01-01T00:00:00Z", "2025-01-01T00:01:00Z"),
      status_history: [
        { status: "DEPLOYED", at: "2025-01-01T00:01:00Z" },
        { status: "QUEUED", at: "2025-01-01T00:00:00Z" },
        { status: "BUILDING", at: "2025-01-01T00:00:10Z" },
      ],
    } as Revision;
    const { steps, complete } = revisionSteps(withHistory);
    expect(steps.map((s) => s.status)).toEqual(["QUEUED", "BUILDING", "DEPLOYED"]);
    expect(complete).toBe(true);
  });
});

describe("following logs", () => {
  it("appends pages in order, drops repeats and moves the cursor", () => {
    let b = appendPage(emptyBuffer(), { logs: [line(1), line(2)], next_offset: "2" });
    expect(b.cursor).toBe("2");
    b = appendPage(b, { logs: [line(2), line(3)], next_offset: null });
    expect(b.entries.map((e) => e.id)).toEqual(["1", "2", "3"]);
    // the last page has no next_offset: a follower continues after its last line
    expect(b.cursor).toBe("3");
    // an empty page keeps the buffer (same object: no re-render)
    expect(appendPage(b, { logs: [], next_offset: null })).toBe(b);
    expect(nextCursor("7", { logs: [], next_offset: null })).toBe("7");
  });

  it("keeps at most `max` lines, counting what it dropped", () => {
    let b = appendPage(emptyBuffer(), { logs: [line(1), line(2), line(3)], next_offset: null }, 4);
    b = appendPage(b, { logs: [line(4), line(5), line(6)], next_offset: null }, 4);
    expect(b.entries.map((e) => e.id)).toEqual(["3", "4", "5", "6"]);
    expect(b.dropped).toBe(2);
    // a dropped line seen again is not appended twice over the kept ones
    expect(appendPage(b, { logs: [line(6)], next_offset: null }, 4).entries).toHaveLength(4);
  });

  it("reads on at once while pages remain, polls while running, stops after a read that began once settled", () => {
    expect(followDelay({ more: true, settledBeforeFetch: true })).toBe(0);
    expect(followDelay({ more: false, settledBeforeFetch: false })).toBe(FOLLOW_MS);
    expect(followDelay({ more: false, settledBeforeFetch: true })).toBeNull();
  });

  it("knows whether the reader is at the bottom", () => {
    expect(isAtBottom({ scrollTop: 580, clientHeight: 400, scrollHeight: 1000 })).toBe(true);
    expect(isAtBottom({ scrollTop: 100, clientHeight: 400, scrollHeight: 1000 })).toBe(false);
  });
});

describe("secrets", () => {
  const stored = [
    { name: "OPENAI_API_KEY", value: "********" },
    { name: "GREETING", value: "********" },
  ];

  it("sends kept secrets back exactly as the API returned them, and typed values as typed", () => {
    const drafts = draftsFrom(stored);
    expect(drafts.every((d) => d.value === null)).toBe(true);
    drafts[1] = { ...drafts[1]!, value: "hello" };
    drafts.push({ key: "n", name: "NEW_ONE", value: "v" });
    expect(patchSecrets(drafts, stored)).toEqual([
      { name: "OPENAI_API_KEY", value: "********" },
      { name: "GREETING", value: "hello" },
      { name: "NEW_ONE", value: "v" },
    ]);
    expect(describeSecretChanges(drafts, stored)).toBe("add NEW_ONE; change GREETING");
  });

  it("removing a secret leaves it out of the list", () => {
    const drafts = draftsFrom(stored).filter((d) => d.name !== "GREETING");
    expect(patchSecrets(drafts, stored)).toEqual([{ name: "OPENAI_API_KEY", value: "********" }]);
    expect(describeSecretChanges(drafts, stored)).toBe("remove GREETING");
  });

  it("refuses blank and repeated names, and a rename that would keep a value the server cannot find", () => {
    expect(secretProblems([{ key: "1", name: "", value: "x" }])).toEqual(["every secret needs a name"]);
    expect(secretProblems([{ key: "1", name: "A", value: "x" }, { key: "2", name: "A", value: "y" }])).toEqual(["A appears twice"]);
    expect(secretProblems([{ key: "1", name: "RENAMED", value: null, storedName: "GREETING" }])).toEqual(["RENAMED needs a value"]);
    expect(secretProblems(draftsFrom(stored))).toEqual([]);
  });
});

describe("effective resource spec", () => {
  it("marks the values the user set and fills in the server's defaults", () => {
    const groups = effectiveSpecGroups({ source_config: { resource_spec: { cpu: 3 }, deployment_type: null } });
    const server = groups.find((g) => g.title === "Server")!.rows;
    const byField = Object.fromEntries(server.map((r) => [r.field, r]));
    expect(byField.cpu).toEqual({ field: "cpu", value: 3, given: true });
    // limit defaults to twice the request
    expect(byField.cpu_limit).toEqual({ field: "cpu_limit", value: 6, given: false });
    // dev base values
    expect(byField.memory_mb).toEqual({ field: "memory_mb", value: 1024, given: false });
    const prod = effectiveSpecGroups({ source_config: { deployment_type: "prod" } }).find((g) => g.title === "Server")!.rows;
    expect(prod.find((r) => r.field === "max_scale")!.value).toBe(10);
  });
});

describe("idempotency keys", () => {
  it("are v4 UUIDs, also where crypto.randomUUID is missing (plain http on another host)", async () => {
    const { newIdempotencyKey } = await import("../../src/console/deployments/api");
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(newIdempotencyKey()).toMatch(v4);
    const original = crypto.randomUUID;
    Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true });
    try {
      const keys = new Set(Array.from({ length: 50 }, () => newIdempotencyKey()));
      expect(keys.size).toBe(50);
      for (const k of keys) expect(k).toMatch(v4);
    } finally {
      Object.defineProperty(crypto, "randomUUID", { value: original, configurable: true });
    }
  });
});

describe("request bodies", () => {
  it("leaves blank optional create fields out and only sends the source's fields", () => {
    const base = { name: " demo ", integrationId: "i", repoUrl: "file:///r", repoRef: "main", agentConfigPath: "a.json", installCommand: "", imageUri: "img:1" };
    expect(createBody({ ...base, source: "hosted_git" })).toEqual({
      name: "demo",
      source: "hosted_git",
      source_config: { integration_id: "i", repo_url: "file:///r", install_command: undefined },
      source_revision_config: { repo_ref: "main", agent_config_path: "a.json" },
      secrets: [],
    });
    expect(createBody({ ...base, source: "external_container" })).toEqual({
      name: "demo",
      source: "external_container",
      source_config: {},
      source_revision_config: { image_uri: "img:1" },
      secrets: [],
    });
  });

  it("prefills the new-revision fields of the source and sends only non-blank ones", () => {
    expect(revisionFields({ source: "external_container", source_revision_config: { image_uri: "img:2" } })).toEqual({ image_uri: "img:2" });
    expect(revisionFields({ source: "hosted_git", source_revision_config: { repo_ref: "main" } })).toEqual({ repo_ref: "main", agent_config_path: "" });
    expect(revisionPatch({ repo_ref: " dev ", agent_config_path: "" })).toEqual({ source_revision_config: { repo_ref: "dev" } });
  });
});
