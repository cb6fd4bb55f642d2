/**
 * The rules a worker applies when it takes over a run whose earlier attempt died: whether that
 * attempt had finished the run, and whether an error means "the database went away".
 */
import { describe, expect, it } from "vitest";
import { breakpointHit, decideResume, type CheckpointFacts, type ScheduledTask } from "../../src/agent-server/runs/resume.js";
import { isConnectionLoss, poolPort, socketFailure } from "../../src/shared/db/connection-errors.js";

const task = (name: string, saved: Partial<ScheduledTask> = {}): ScheduledTask => ({ name, hidden: false, output: false, interrupted: false, ...saved });
/** A checkpoint whose channels changed since the last breakpoint. */
const facts = (tasks: ScheduledTask[], more: Partial<CheckpointFacts> = {}): CheckpointFacts => ({
  source: "loop",
  channelVersions: { messages: "02.a", "branch:to:two": "02.b" },
  interruptSeen: { messages: "01.a" },
  tasks,
  ...more,
});

describe("whether a run's newest checkpoint finished it", () => {
  it("done when nothing is scheduled: the graph reached its end", () => {
    expect(decideResume(facts([]), {}).done).toBe(true);
  });

  it("not done when every task saved its writes but the checkpoint applying them is missing", () => {
    expect(decideResume(facts([task("two", { output: true })]), {}).done).toBe(false);
    expect(decideResume(facts([task("left", { output: true }), task("right", { output: true })]), {}).done).toBe(false);
  });

  it("not done when a task has yet to run", () => {
    expect(decideResume(facts([task("two")]), {}).done).toBe(false);
    expect(decideResume(facts([task("left", { output: true }), task("right")]), {}).done).toBe(false);
  });

  it("done when the step stopped at interrupt() and every other task of it finished", () => {
    expect(decideResume(facts([task("review", { interrupted: true })]), {}).done).toBe(true);
    expect(decideResume(facts([task("ask", { interrupted: true }), task("log", { output: true })]), {}).done).toBe(true);
    // a sibling still unfinished: the attempt died before the step settled
    expect(decideResume(facts([task("ask", { interrupted: true }), task("log")]), {}).done).toBe(false);
  });

  it("done at an interrupt_before breakpoint on a scheduled node, not at one elsewhere", () => {
    expect(decideResume(facts([task("two")]), { before: ["two"] }).done).toBe(true);
    expect(decideResume(facts([task("two")]), { before: "*" }).done).toBe(true);
    expect(decideResume(facts([task("two")]), { before: ["three"] }).done).toBe(false);
    // already seen at this breakpoint (a resumed run passed it): no stop
    const seen = facts([task("two")], { interruptSeen: { messages: "02.a", "branch:to:two": "02.b" } });
    expect(decideResume(seen, { before: ["two"] }).done).toBe(false);
  });

  it("done at an interrupt_after breakpoint on the node that produced the checkpoint", () => {
    const afterOne = facts([task("two")], { producedBy: [{ name: "one", hidden: false }] });
    expect(decideResume(afterOne, { after: ["one"] }).done).toBe(true);
    expect(decideResume(afterOne, { after: ["two"] }).done).toBe(false);
    expect(decideResume({ ...afterOne, source: "input" }, { after: ["one"] }).done).toBe(false);
  });

  it('"*" breakpoints skip hidden nodes, as LangGraph does', () => {
    expect(breakpointHit(facts([]), "*", [{ name: "internal", hidden: true }])).toBe(false);
    expect(breakpointHit(facts([]), "*", [{ name: "agent", hidden: false }])).toBe(true);
  });
});

describe("telling a lost database connection from other errors", () => {
  it("knows Postgres shutdown states and node-postgres connection messages, also when wrapped", () => {
    expect(isConnectionLoss(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error("the database system is starting up"), { code: "57P03" }))).toBe(true);
    expect(isConnectionLoss(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isConnectionLoss(new Error("graph failed", { cause: new Error("Connection terminated") }))).toBe(true);
  });

  it("does not mistake a graph's own errors, nor query errors, for it", () => {
    expect(isConnectionLoss(new TypeError("the tool is broken"))).toBe(false);
    expect(isConnectionLoss(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(isConnectionLoss(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(false);
  });

  it("finds a socket failure and the port it tried, to compare with the database's", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", address: "127.0.0.1", port: 5432 });
    expect(socketFailure(new Error("fetch failed", { cause: refused }))).toEqual({ code: "ECONNREFUSED", port: 5432 });
    expect(socketFailure(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))).toEqual({ code: "ECONNRESET" });
    expect(socketFailure(new TypeError("the tool is broken"))).toBeUndefined();
    expect(poolPort({ options: { connectionString: "postgres://u@127.0.0.1:40967/db" } })).toBe(40967);
    expect(poolPort({ options: { connectionString: "postgres://u@db/x" } })).toBe(5432);
    expect(poolPort({ options: { port: 6543 } })).toBe(6543);
  });
});
