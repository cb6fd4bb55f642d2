/** Revision state machine, revision pointers and deployment status: the pure control-plane rules. */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_DEPLOY_DEADLINE_MS,
  REVISION_STATUSES,
  deadlineOutcome,
  happyPath,
  isFailed,
  isRevisionStatus,
  isTerminal,
  nextForSupersede,
  pickActiveRevision,
  pickLatestRevision,
  revisionServing,
  stampDeployingSince,
  transition,
  type RevisionRef,
  type RevisionStatus,
} from "../../src/control-plane/rules/revision-status.js";
import { DEPLOYMENT_STATUSES, deriveDeploymentStatus } from "../../src/control-plane/rules/deployment-status.js";

// Written out by hand, independent of the module's table, so a change to either shows up here.
const ALLOWED = new Set([
  "CREATING>QUEUED", "CREATING>CREATE_FAILED", "CREATING>SKIPPED", "CREATING>INTERRUPTED", "CREATING>UNKNOWN",
  "QUEUED>AWAITING_BUILD", "QUEUED>AWAITING_DEPLOY", "QUEUED>SKIPPED", "QUEUED>INTERRUPTED", "QUEUED>UNKNOWN",
  "AWAITING_BUILD>BUILDING", "AWAITING_BUILD>BUILD_FAILED", "AWAITING_BUILD>SKIPPED", "AWAITING_BUILD>INTERRUPTED", "AWAITING_BUILD>UNKNOWN",
  "BUILDING>AWAITING_DEPLOY", "BUILDING>BUILD_FAILED", "BUILDING>INTERRUPTED", "BUILDING>UNKNOWN",
  "AWAITING_DEPLOY>DEPLOYING", "AWAITING_DEPLOY>DEPLOY_FAILED", "AWAITING_DEPLOY>INTERRUPTED", "AWAITING_DEPLOY>UNKNOWN",
  "DEPLOYING>DEPLOYED", "DEPLOYING>DEPLOY_FAILED", "DEPLOYING>INTERRUPTED", "DEPLOYING>UNKNOWN",
  // UNKNOWN: back to anything once the listener reports again
  "UNKNOWN>CREATING", "UNKNOWN>QUEUED", "UNKNOWN>AWAITING_BUILD", "UNKNOWN>BUILDING", "UNKNOWN>AWAITING_DEPLOY",
  "UNKNOWN>DEPLOYING", "UNKNOWN>CREATE_FAILED", "UNKNOWN>BUILD_FAILED", "UNKNOWN>DEPLOY_FAILED", "UNKNOWN>DEPLOYED",
  "UNKNOWN>SKIPPED", "UNKNOWN>INTERRUPTED",
]);
const TERMINAL: RevisionStatus[] = ["DEPLOYED", "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED", "INTERRUPTED"];

describe("revision status enum", () => {
  it("is the full upstream enum in spec order", () => {
    expect([...REVISION_STATUSES]).toEqual([
      "CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING",
      "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "DEPLOYED", "SKIPPED", "INTERRUPTED", "UNKNOWN",
    ]);
  });

  it("isRevisionStatus accepts exactly the enum", () => {
    for (const s of REVISION_STATUSES) expect(isRevisionStatus(s)).toBe(true);
    for (const v of ["deployed", "FAILED", "", null, 3]) expect(isRevisionStatus(v)).toBe(false);
  });
});

describe("transition: every pair of the enum", () => {
  const pairs = REVISION_STATUSES.flatMap((from) => REVISION_STATUSES.map((to) => [from, to] as const));

  it.each(pairs)("%s -> %s", (from, to) => {
    const result = transition(from, to);
    if (from === to) {
      expect(result).toEqual({ ok: true, changed: false });
    } else if (ALLOWED.has(`${from}>${to}`)) {
      expect(result).toEqual({ ok: true, changed: true });
    } else {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toContain(`${from} -> ${to}`);
    }
  });

  it("the table has the expected number of legal moves (guards the hand-written set too)", () => {
    const legal = pairs.filter(([from, to]) => from !== to && transition(from, to).ok);
    expect(legal.length).toBe(ALLOWED.size);
    expect(ALLOWED.size).toBe(39);
  });

  it("refusals say why: terminal, or what is allowed", () => {
    const terminal = transition("DEPLOYED", "BUILDING");
    expect(terminal).toEqual({ ok: false, error: "illegal revision status transition DEPLOYED -> BUILDING (DEPLOYED is terminal)" });
    const skipBack = transition("BUILDING", "QUEUED");
    expect(skipBack.ok).toBe(false);
    if (!skipBack.ok) expect(skipBack.error).toContain("allowed from BUILDING: AWAITING_DEPLOY, BUILD_FAILED, INTERRUPTED, UNKNOWN");
  });

  it("the happy paths are walkable one legal step at a time", () => {
    for (const buildless of [false, true]) {
      const path = happyPath({ buildless });
      expect(path[0]).toBe("CREATING");
      expect(path.at(-1)).toBe("DEPLOYED");
      for (let i = 1; i < path.length; i++) {
        expect(transition(path[i - 1]!, path[i]!, { buildless })).toEqual({ ok: true, changed: true });
      }
    }
    expect(happyPath()).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);
    expect(happyPath({ buildless: true })).toEqual(["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);
  });

  it("buildless sources (external_container) can never enter a build status", () => {
    for (const to of ["AWAITING_BUILD", "BUILDING", "BUILD_FAILED"] as const) {
      for (const from of REVISION_STATUSES) {
        if (from === to) continue;
        const result = transition(from, to, { buildless: true });
        expect(result.ok, `${from} -> ${to}`).toBe(false);
        if (!result.ok) expect(result.error).toContain("no build stage");
      }
    }
    // the other moves are unaffected
    expect(transition("QUEUED", "AWAITING_DEPLOY", { buildless: true }).ok).toBe(true);
    expect(transition("UNKNOWN", "DEPLOYED", { buildless: true }).ok).toBe(true);
  });
});

describe("terminal and failed", () => {
  it.each(REVISION_STATUSES)("isTerminal(%s)", (s) => {
    expect(isTerminal(s)).toBe(TERMINAL.includes(s));
  });

  it.each(REVISION_STATUSES)("isFailed(%s) only for the *_FAILED statuses", (s) => {
    expect(isFailed(s)).toBe(s.endsWith("_FAILED"));
  });

  it("a terminal status has no way out, a non-terminal one always has one", () => {
    for (const from of REVISION_STATUSES) {
      const exits = REVISION_STATUSES.filter((to) => to !== from && transition(from, to).ok);
      if (isTerminal(from)) expect(exits, from).toEqual([]);
      else expect(exits.length, from).toBeGreaterThan(0);
    }
  });
});

describe("nextForSupersede", () => {
  it.each([
    ["CREATING", "SKIPPED"],
    ["QUEUED", "SKIPPED"],
    ["AWAITING_BUILD", "SKIPPED"],
    ["BUILDING", "BUILDING"],
    ["AWAITING_DEPLOY", "AWAITING_DEPLOY"],
    ["DEPLOYING", "DEPLOYING"],
    ["DEPLOYED", "DEPLOYED"],
    ["BUILD_FAILED", "BUILD_FAILED"],
    ["SKIPPED", "SKIPPED"],
    ["INTERRUPTED", "INTERRUPTED"],
    ["UNKNOWN", "UNKNOWN"],
  ] as const)("%s becomes %s", (from, to) => {
    expect(nextForSupersede(from)).toBe(to);
  });

  it("never asks for an illegal move", () => {
    for (const s of REVISION_STATUSES) expect(transition(s, nextForSupersede(s)).ok, s).toBe(true);
  });
});

describe("deploy deadline", () => {
  const start = new Date("2026-01-01T00:00:00Z");
  const after = (ms: number) => new Date(start.getTime() + ms);

  it("defaults to 300 s with the upstream wording", () => {
    expect(DEFAULT_DEPLOY_DEADLINE_MS).toBe(300_000);
    const rev = { status: "DEPLOYING" as const, deploying_since: start };
    expect(deadlineOutcome(rev, after(299_999))).toBeNull();
    expect(deadlineOutcome(rev, after(300_000))).toEqual({
      status: "DEPLOY_FAILED",
      reason: "Timeout: Deployment is not ready after 300 seconds.",
    });
    expect(deadlineOutcome(rev, after(3_600_000))?.status).toBe("DEPLOY_FAILED");
  });

  it("a configured deadline changes the cut-off and the reason", () => {
    const rev = { status: "DEPLOYING" as const, deploying_since: start };
    expect(deadlineOutcome(rev, after(59_000), 60_000)).toBeNull();
    expect(deadlineOutcome(rev, after(61_000), 60_000)).toEqual({
      status: "DEPLOY_FAILED",
      reason: "Timeout: Deployment is not ready after 60 seconds.",
    });
  });

  it("only a DEPLOYING revision is judged", () => {
    for (const status of REVISION_STATUSES.filter((s) => s !== "DEPLOYING")) {
      expect(deadlineOutcome({ status, deploying_since: start }, after(10_000_000)), status).toBeNull();
    }
  });

  it("the outcome is a legal move from DEPLOYING", () => {
    const outcome = deadlineOutcome({ status: "DEPLOYING", deploying_since: start }, after(300_000));
    expect(transition("DEPLOYING", outcome!.status).ok).toBe(true);
  });

  it("a DEPLOYING revision without its stamp is a caller bug, not a silent pass", () => {
    expect(() => deadlineOutcome({ status: "DEPLOYING", deploying_since: null }, after(1))).toThrow(/deploying_since/);
  });

  it("the clock starts on first entering DEPLOYING and UNKNOWN does not reset it", () => {
    // queued and built long before: none of that counts
    let since: Date | null = null;
    since = stampDeployingSince(since, "AWAITING_BUILD", start);
    since = stampDeployingSince(since, "BUILDING", after(1000));
    since = stampDeployingSince(since, "AWAITING_DEPLOY", after(500_000));
    expect(since).toBeNull();
    since = stampDeployingSince(since, "DEPLOYING", after(600_000));
    expect(since).toEqual(after(600_000));
    expect(deadlineOutcome({ status: "DEPLOYING", deploying_since: since }, after(800_000))).toBeNull();
    // the listener drops out and comes back: the stamp holds
    since = stampDeployingSince(since, "UNKNOWN", after(850_000));
    since = stampDeployingSince(since, "DEPLOYING", after(880_000));
    expect(since).toEqual(after(600_000));
    expect(deadlineOutcome({ status: "DEPLOYING", deploying_since: since }, after(900_000))?.status).toBe("DEPLOY_FAILED");
  });
});

describe("latest and active revision", () => {
  const rev = (id: string, status: RevisionStatus): RevisionRef => ({ id, status });

  it("latest is simply the newest, whatever its status", () => {
    expect(pickLatestRevision([rev("r3", "BUILD_FAILED"), rev("r2", "DEPLOYED")])).toBe("r3");
    expect(pickLatestRevision([])).toBeNull();
  });

  it("nothing deployed yet: no active revision", () => {
    expect(pickActiveRevision([], null)).toBeNull();
    expect(pickActiveRevision([rev("r2", "DEPLOYING"), rev("r1", "BUILD_FAILED")], null)).toBeNull();
  });

  it("the first revision becomes active once DEPLOYED", () => {
    expect(pickActiveRevision([rev("r1", "DEPLOYED")], null)).toBe("r1");
  });

  it("a new healthy revision takes over", () => {
    expect(pickActiveRevision([rev("r2", "DEPLOYED"), rev("r1", "DEPLOYED")], "r1")).toBe("r2");
  });

  it("a newer revision still rolling out does not take traffic yet", () => {
    for (const status of ["CREATING", "QUEUED", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "UNKNOWN"] as const) {
      expect(pickActiveRevision([rev("r2", status), rev("r1", "DEPLOYED")], "r1"), status).toBe("r1");
    }
  });

  it("a newer failed, skipped or interrupted revision leaves the old one active", () => {
    for (const status of ["CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED", "INTERRUPTED"] as const) {
      expect(pickActiveRevision([rev("r3", status), rev("r2", "DEPLOYED"), rev("r1", "DEPLOYED")], "r2"), status).toBe("r2");
    }
  });

  it("skips failed ones to reach the newest healthy revision", () => {
    expect(pickActiveRevision([rev("r4", "DEPLOY_FAILED"), rev("r3", "DEPLOYED"), rev("r2", "DEPLOY_FAILED"), rev("r1", "DEPLOYED")], "r1")).toBe("r3");
  });

  it("an older revision finishing late never takes traffic back", () => {
    // r2 is active; r1 (older) only now reached DEPLOYED
    expect(pickActiveRevision([rev("r3", "BUILDING"), rev("r2", "DEPLOYED"), rev("r1", "DEPLOYED")], "r2")).toBe("r2");
  });

  it("an active revision outside the given page stays active", () => {
    expect(pickActiveRevision([rev("r9", "BUILD_FAILED"), rev("r8", "DEPLOYING")], "r1")).toBe("r1");
    expect(pickActiveRevision([rev("r9", "DEPLOYED"), rev("r8", "DEPLOYING")], "r1")).toBe("r9");
  });
});

describe("a revision's part in serving (is_active, superseded)", () => {
  const at = (id: string, seq: number, status: RevisionStatus) => ({ id, seq, status });
  const serving = (r: ReturnType<typeof at>, active: ReturnType<typeof at> | null) => revisionServing(r, active);

  it("after a rollback every revision reads DEPLOYED: the newest serves, the older ones are superseded", () => {
    const [r1, r2, r3] = [at("r1", 1, "DEPLOYED"), at("r2", 2, "DEPLOYED"), at("r3", 3, "DEPLOYED")];
    expect([r3, r2, r1].map((r) => serving(r, r3))).toEqual([
      { is_active: true, superseded: false },
      { is_active: false, superseded: true },
      { is_active: false, superseded: true },
    ]);
  });

  it("a revision that never deployed is not superseded, whatever came after", () => {
    const active = at("r3", 3, "DEPLOYED");
    for (const status of ["BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED", "INTERRUPTED", "QUEUED"] as const) {
      expect(serving(at("r2", 2, status), active), status).toEqual({ is_active: false, superseded: false });
    }
  });

  it("a DEPLOYED revision newer than the active one is about to take over, not superseded", () => {
    expect(serving(at("r3", 3, "DEPLOYED"), at("r2", 2, "DEPLOYED"))).toEqual({ is_active: false, superseded: false });
  });

  it("nothing serves: nothing is active or superseded", () => {
    expect(serving(at("r1", 1, "DEPLOYED"), null)).toEqual({ is_active: false, superseded: false });
  });
});

describe("deployment status", () => {
  it("has exactly the spec's values", () => {
    expect([...DEPLOYMENT_STATUSES]).toEqual(["AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN"]);
  });

  // Every combination of the four facts: [deleteRequested, databaseReady, listenerReachable, hasActiveRevision] → status.
  const T = true;
  const F = false;
  const table: [boolean, boolean, boolean, boolean, string][] = [
    [F, F, F, F, "AWAITING_DATABASE"],
    [F, F, F, T, "AWAITING_DATABASE"],
    [F, F, T, F, "AWAITING_DATABASE"],
    [F, F, T, T, "AWAITING_DATABASE"],
    [F, T, F, F, "UNKNOWN"],
    [F, T, F, T, "UNKNOWN"],
    [F, T, T, F, "UNUSED"],
    [F, T, T, T, "READY"],
    [T, F, F, F, "AWAITING_DELETE"],
    [T, F, F, T, "AWAITING_DELETE"],
    [T, F, T, F, "AWAITING_DELETE"],
    [T, F, T, T, "AWAITING_DELETE"],
    [T, T, F, F, "AWAITING_DELETE"],
    [T, T, F, T, "AWAITING_DELETE"],
    [T, T, T, F, "AWAITING_DELETE"],
    [T, T, T, T, "AWAITING_DELETE"],
  ];

  it.each(table)("delete=%s db=%s listener=%s active=%s -> %s", (deleteRequested, databaseReady, listenerReachable, hasActiveRevision, status) => {
    expect(deriveDeploymentStatus({ deleteRequested, databaseReady, listenerReachable, hasActiveRevision })).toBe(status);
  });

  it("named precedence cases", () => {
    const all = { deleteRequested: false, databaseReady: true, listenerReachable: true, hasActiveRevision: true };
    expect(deriveDeploymentStatus(all)).toBe("READY");
    // deletion wins over everything, even a missing database and a silent listener
    expect(deriveDeploymentStatus({ deleteRequested: true, databaseReady: false, listenerReachable: false, hasActiveRevision: false })).toBe("AWAITING_DELETE");
    // no database yet outranks a listener that cannot report
    expect(deriveDeploymentStatus({ ...all, databaseReady: false, listenerReachable: false })).toBe("AWAITING_DATABASE");
    // a silent listener must not be reported READY
    expect(deriveDeploymentStatus({ ...all, listenerReachable: false })).toBe("UNKNOWN");
    // first revision still rolling out
    expect(deriveDeploymentStatus({ ...all, hasActiveRevision: false })).toBe("UNUSED");
  });
});
