/**
 * The k8s listener's status mapping (pure): an AgentDeployment as the operator reports it, and the
 * revision it runs, → the deployment's database flag and the revision's next status. Every row of
 * the table in src/runtime/k8s/status.ts, plus the cases that must NOT move a revision.
 */
import { describe, expect, it } from "vitest";
import { REVISION_STATUSES, type RevisionStatus } from "../../src/control-plane/rules/index.js";
import type { AgentDeploymentStatus, Condition } from "../../src/operator/types.js";
import { conditionChanges, observe, type ObservedAgentDeployment, type ObservedRevision } from "../../src/runtime/k8s/status.js";

const REV = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const OTHER = "0f8fad5b-d9cb-469f-a165-70867728950e";
const T0 = new Date("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const DEADLINE = 300_000;
const URL = "http://my-agent-api.agents.svc:8000";

type C = Pick<Condition, "type" | "status" | "reason"> & Partial<Condition>;
const cond = (c: C): Condition => ({ message: "", lastTransitionTime: T0.toISOString(), ...c });
const ready = (status: Condition["status"], reason = status === "True" ? "AllComponentsReady" : "Reconciling", message = "") => cond({ type: "Ready", status, reason, message });
const db = (status: Condition["status"]) => cond({ type: "DatabaseReady", status, reason: status === "True" ? "DatabaseReady" : "Provisioning" });

function cr(o: { generation?: number; observed?: number; revisionId?: string; conditions?: Condition[]; latestReady?: string; latestCreated?: string; url?: string; noStatus?: boolean; deleting?: boolean } = {}): ObservedAgentDeployment {
  const status: AgentDeploymentStatus = {
    observedGeneration: o.observed ?? o.generation ?? 2,
    conditions: o.conditions ?? [],
    ...(o.latestReady ? { latestReadyRevision: o.latestReady } : {}),
    latestCreatedRevision: o.latestCreated ?? o.revisionId ?? REV,
    url: o.url ?? URL,
  };
  return {
    metadata: { generation: o.generation ?? 2, ...(o.deleting ? { deletionTimestamp: T0.toISOString() } : {}) },
    spec: { revisionId: o.revisionId ?? REV },
    ...(o.noStatus ? {} : { status }),
  };
}

const deploying = (sinceMs = 0): ObservedRevision => ({ id: REV, status: "DEPLOYING", deploying_since: at(sinceMs).toISOString() });
const run = (c: ObservedAgentDeployment | undefined, r: ObservedRevision = deploying(), nowMs = 1000) => observe(c, r, { now: at(nowMs), deadlineMs: DEADLINE });

describe("k8s listener status mapping", () => {
  describe("the database flag", () => {
    it("is false without a status, without DatabaseReady, or with it not True", () => {
      expect(run(cr({ noStatus: true })).databaseReady).toBe(false);
      expect(run(cr({ conditions: [ready("Unknown")] })).databaseReady).toBe(false);
      expect(run(cr({ conditions: [db("Unknown")] })).databaseReady).toBe(false);
      expect(run(cr({ conditions: [db("False")] })).databaseReady).toBe(false);
    });
    it("is true with DatabaseReady True, whatever the revision is doing", () => {
      expect(run(cr({ conditions: [db("True"), ready("Unknown")] }))).toEqual({ databaseReady: true });
      for (const status of REVISION_STATUSES) {
        expect(run(cr({ conditions: [db("True")] }), { id: REV, status, deploying_since: status === "DEPLOYING" ? T0 : null }).databaseReady).toBe(true);
      }
    });
    it("is false without a CR", () => {
      expect(run(undefined).databaseReady).toBe(false);
    });
  });

  describe("DEPLOYED", () => {
    const good = { conditions: [db("True"), ready("True")], latestReady: REV };
    it("needs Ready True, latestReadyRevision = the revision and the current generation observed", () => {
      expect(run(cr(good)).revision).toEqual({ status: "DEPLOYED", url: URL, message: "" });
      expect(run(cr({ ...good, generation: 3, observed: 4 })).revision?.status).toBe("DEPLOYED");
    });
    it("not while the operator has not observed the generation (Ready True is the previous revision's)", () => {
      expect(run(cr({ ...good, generation: 3, observed: 2 })).revision).toBeUndefined();
    });
    it("not while latestReadyRevision is another (older) revision", () => {
      expect(run(cr({ ...good, latestReady: OTHER })).revision).toBeUndefined();
      expect(run(cr({ conditions: [db("True"), ready("True")] })).revision).toBeUndefined();
    });
    it("not with Ready Unknown or False", () => {
      expect(run(cr({ ...good, conditions: [db("True"), ready("Unknown")] })).revision).toBeUndefined();
      expect(run(cr({ ...good, conditions: [db("True"), ready("False", "Reconciling")] })).revision).toBeUndefined();
    });
    it("not for a CR whose spec runs another revision, nor one being deleted", () => {
      expect(run(cr({ ...good, revisionId: OTHER, latestReady: REV })).revision).toBeUndefined();
      expect(run(cr({ ...good, deleting: true })).revision).toBeUndefined();
    });
    it("carries no URL when the status has none", () => {
      expect(run(cr({ ...good, url: "" })).revision).toEqual({ status: "DEPLOYED", url: undefined, message: "" });
    });
  });

  describe("DEPLOY_FAILED", () => {
    const stalled = (extra: Partial<Condition> = {}) =>
      cond({ type: "APIServerReady", status: "False", reason: "ProgressDeadlineExceeded", message: 'ReplicaSet "x" has timed out progressing.', ...extra });
    it("on a condition False with ProgressDeadlineExceeded, with its message", () => {
      const out = run(cr({ conditions: [db("True"), stalled(), ready("False", "ProgressDeadlineExceeded", 'ReplicaSet "x" has timed out progressing.')] }));
      expect(out).toEqual({ databaseReady: true, revision: { status: "DEPLOY_FAILED", reason: 'ReplicaSet "x" has timed out progressing.' } });
    });
    it("on Ready False with ProgressDeadlineExceeded alone", () => {
      expect(run(cr({ conditions: [ready("False", "ProgressDeadlineExceeded", "stuck")] })).revision).toEqual({ status: "DEPLOY_FAILED", reason: "stuck" });
    });
    it("on InvalidSpec (the operator cannot render it)", () => {
      expect(run(cr({ conditions: [ready("False", "InvalidSpec", "spec.image: required")] })).revision).toEqual({ status: "DEPLOY_FAILED", reason: "spec.image: required" });
    });
    it("names the condition when it has no message", () => {
      expect(run(cr({ conditions: [stalled({ message: "" })] })).revision).toEqual({ status: "DEPLOY_FAILED", reason: "APIServerReady: ProgressDeadlineExceeded" });
    });
    it("not for other False reasons (still converging)", () => {
      expect(run(cr({ conditions: [ready("False", "Reconciling", "waiting")] })).revision).toBeUndefined();
      expect(run(cr({ conditions: [cond({ type: "QueueReady", status: "False", reason: "RollingOut" })] })).revision).toBeUndefined();
    });
    it("not for a stale status: an older generation, or a condition observed at an older generation", () => {
      expect(run(cr({ generation: 3, observed: 2, conditions: [stalled()] })).revision).toBeUndefined();
      expect(run(cr({ generation: 3, observed: 3, conditions: [stalled({ observedGeneration: 2 })] })).revision).toBeUndefined();
      expect(run(cr({ generation: 3, observed: 3, conditions: [stalled({ observedGeneration: 3 })] })).revision?.status).toBe("DEPLOY_FAILED");
    });
    it("not when the status describes another revision (latestCreatedRevision)", () => {
      expect(run(cr({ latestCreated: OTHER, conditions: [stalled()] })).revision).toBeUndefined();
    });
    it("DEPLOYED wins over a stale failure condition of a component", () => {
      expect(run(cr({ conditions: [db("True"), stalled(), ready("True")], latestReady: REV })).revision?.status).toBe("DEPLOYED");
    });
  });

  describe("the deploy deadline", () => {
    it("fails a revision DEPLOYING for the deadline, with the upstream wording and the last Ready", () => {
      const out = run(cr({ conditions: [db("False"), ready("Unknown", "Reconciling", "waiting for DatabaseReady")] }), deploying(0), DEADLINE);
      expect(out.revision).toEqual({
        status: "DEPLOY_FAILED",
        reason: "Timeout: Deployment is not ready after 300 seconds. Last status: Ready Unknown (Reconciling: waiting for DatabaseReady).",
      });
    });
    it("not one millisecond before", () => {
      expect(run(cr(), deploying(0), DEADLINE - 1).revision).toBeUndefined();
    });
    it("applies without a CR (deleted behind our back) and for a CR of another revision", () => {
      expect(run(undefined, deploying(0), DEADLINE + 1).revision).toEqual({ status: "DEPLOY_FAILED", reason: "Timeout: Deployment is not ready after 300 seconds." });
      expect(run(cr({ revisionId: OTHER }), deploying(0), DEADLINE + 1).revision?.status).toBe("DEPLOY_FAILED");
    });
    it("counts from deploying_since (a Date or an ISO string)", () => {
      expect(run(cr(), { id: REV, status: "DEPLOYING", deploying_since: at(10_000) }, DEADLINE + 5_000).revision).toBeUndefined();
      expect(run(cr(), { id: REV, status: "DEPLOYING", deploying_since: at(10_000) }, DEADLINE + 10_000).revision?.status).toBe("DEPLOY_FAILED");
    });
    it("a ready revision is DEPLOYED even past the deadline", () => {
      expect(run(cr({ conditions: [ready("True")], latestReady: REV }), deploying(0), DEADLINE * 2).revision?.status).toBe("DEPLOYED");
    });
  });

  it("moves only DEPLOYING revisions: every other status stays, terminal ones above all", () => {
    const everything = cr({ conditions: [db("True"), ready("True")], latestReady: REV });
    const failing = cr({ conditions: [ready("False", "ProgressDeadlineExceeded", "x")] });
    for (const status of REVISION_STATUSES.filter((s): s is Exclude<RevisionStatus, "DEPLOYING"> => s !== "DEPLOYING")) {
      const r: ObservedRevision = { id: REV, status, deploying_since: T0 };
      expect(run(everything, r, DEADLINE * 2).revision, status).toBeUndefined();
      expect(run(failing, r, DEADLINE * 2).revision, status).toBeUndefined();
    }
  });

  describe("condition log lines", () => {
    it("logs every condition the first time, then only the ones that changed", () => {
      const first: AgentDeploymentStatus = { conditions: [db("Unknown"), ready("Unknown", "Reconciling", "waiting")] };
      expect(conditionChanges(undefined, first)).toEqual(["DatabaseReady: Unknown (Provisioning)", "Ready: Unknown (Reconciling: waiting)"]);
      expect(conditionChanges(first, first)).toEqual([]);
      const second: AgentDeploymentStatus = { conditions: [db("True"), ready("Unknown", "Reconciling", "waiting")] };
      expect(conditionChanges(first, second)).toEqual(["DatabaseReady: True (DatabaseReady)"]);
      expect(conditionChanges(second, undefined)).toEqual([]);
    });
  });
});
