/** The pure run rules: multitask planning, run status from an outcome, thread status after a run. */
import { describe, expect, it } from "vitest";
import { isTerminal, planMultitask, runStatusFor, threadStatusAfter, type InflightRun } from "../../src/agent-server/runs/rules.js";

const running: InflightRun = { run_id: "r-running", status: "running" };
const pendingA: InflightRun = { run_id: "r-pending-a", status: "pending" };
const pendingB: InflightRun = { run_id: "r-pending-b", status: "pending" };
const proceedNothing = { kind: "proceed", interruptPending: [], deletePending: [], cancelRunning: [] };

describe("planMultitask", () => {
  it("with nothing in flight every strategy simply proceeds", () => {
    for (const strategy of ["reject", "enqueue", "interrupt", "rollback"] as const) {
      expect(planMultitask(strategy, [])).toEqual(proceedNothing);
    }
  });

  it("enqueue leaves the in-flight runs alone", () => {
    expect(planMultitask("enqueue", [running, pendingA, pendingB])).toEqual(proceedNothing);
  });

  it("reject refuses when anything is in flight, pending or running", () => {
    expect(planMultitask("reject", [running])).toEqual({ kind: "reject" });
    expect(planMultitask("reject", [pendingA])).toEqual({ kind: "reject" });
  });

  it("interrupt marks pending runs interrupted and interrupts the running one", () => {
    expect(planMultitask("interrupt", [running, pendingA, pendingB])).toEqual({
      kind: "proceed",
      interruptPending: ["r-pending-a", "r-pending-b"],
      deletePending: [],
      cancelRunning: [{ run_id: "r-running", action: "interrupt" }],
    });
  });

  it("rollback deletes pending runs and rolls back the running one", () => {
    expect(planMultitask("rollback", [pendingA, running])).toEqual({
      kind: "proceed",
      interruptPending: [],
      deletePending: ["r-pending-a"],
      cancelRunning: [{ run_id: "r-running", action: "rollback" }],
    });
  });

  it("with only pending runs nothing is cancelled", () => {
    const plan = planMultitask("interrupt", [pendingA]);
    expect(plan).toMatchObject({ kind: "proceed", interruptPending: ["r-pending-a"], cancelRunning: [] });
  });
});

describe("runStatusFor", () => {
  it("a completed run is a success, even when the graph stopped at interrupt()", () => {
    expect(runStatusFor({ kind: "completed" })).toBe("success");
  });
  it("a failure is an error", () => {
    expect(runStatusFor({ kind: "failed", error: new Error("boom") })).toBe("error");
  });
  it("aborts: interrupt → interrupted, timeout → timeout; rollback, shutdown and lost leases do not end the run here", () => {
    expect(runStatusFor({ kind: "aborted", reason: "interrupt" })).toBe("interrupted");
    expect(runStatusFor({ kind: "aborted", reason: "timeout" })).toBe("timeout");
    expect(runStatusFor({ kind: "aborted", reason: "rollback" })).toBeUndefined();
    expect(runStatusFor({ kind: "aborted", reason: "shutdown" })).toBeUndefined();
    expect(runStatusFor({ kind: "aborted", reason: "lease-lost" })).toBeUndefined();
  });
});

describe("threadStatusAfter", () => {
  it("more pending runs keep the thread busy whatever happened", () => {
    for (const runStatus of ["success", "error", "timeout", "interrupted"] as const) {
      expect(threadStatusAfter({ morePending: true, runStatus, stateHasInterrupts: true })).toBe("busy");
    }
  });
  it("error and timeout make the thread error", () => {
    expect(threadStatusAfter({ morePending: false, runStatus: "error", stateHasInterrupts: false })).toBe("error");
    expect(threadStatusAfter({ morePending: false, runStatus: "timeout", stateHasInterrupts: true })).toBe("error");
  });
  it("pending interrupts in the state make the thread interrupted", () => {
    expect(threadStatusAfter({ morePending: false, runStatus: "success", stateHasInterrupts: true })).toBe("interrupted");
  });
  it("otherwise the thread is idle, also after a cancelled (interrupted) run", () => {
    expect(threadStatusAfter({ morePending: false, runStatus: "success", stateHasInterrupts: false })).toBe("idle");
    expect(threadStatusAfter({ morePending: false, runStatus: "interrupted", stateHasInterrupts: false })).toBe("idle");
  });
});

describe("isTerminal", () => {
  it("knows which statuses end a run", () => {
    for (const s of ["success", "error", "timeout", "interrupted"]) expect(isTerminal(s)).toBe(true);
    for (const s of ["pending", "running", "whatever"]) expect(isTerminal(s)).toBe(false);
  });
});
