/**
 * Pure rules of runs: what a new run does to the runs already in flight on its thread, which
 * thread status follows a run, and which run status follows how execution ended. No I/O here.
 */
import type { MultitaskStrategy } from "../../shared/config.js";
import type { RunStatus, ThreadStatus } from "../api/schemas.js";

export interface InflightRun {
  run_id: string;
  status: "pending" | "running";
}

export type InflightAction =
  | { kind: "reject" }
  | {
      kind: "proceed";
      /** Pending runs to mark `interrupted` (never started, nothing to keep). */
      interruptPending: string[];
      /** Pending runs to delete (rollback: as if they never were). */
      deletePending: string[];
      /** Running runs to stop, with the cancel action their worker applies. */
      cancelRunning: { run_id: string; action: "interrupt" | "rollback" }[];
    };

/** What a new run with `strategy` does to the in-flight runs of its thread. */
export function planMultitask(strategy: MultitaskStrategy, inflight: InflightRun[]): InflightAction {
  const none = { kind: "proceed" as const, interruptPending: [], deletePending: [], cancelRunning: [] };
  if (inflight.length === 0 || strategy === "enqueue") return none;
  if (strategy === "reject") return { kind: "reject" };
  const pending = inflight.filter((r) => r.status === "pending").map((r) => r.run_id);
  const running = inflight.filter((r) => r.status === "running").map((r) => ({ run_id: r.run_id, action: strategy }));
  return strategy === "interrupt"
    ? { ...none, interruptPending: pending, cancelRunning: running }
    : { ...none, deletePending: pending, cancelRunning: running };
}

export type ExecutionOutcome =
  | { kind: "completed" }
  | { kind: "failed"; error: unknown }
  | { kind: "aborted"; reason: "interrupt" | "rollback" | "timeout" | "shutdown" | "lease-lost" }
  /** The database went away under the run: not the run's failure; it is retried once its lease lapses. */
  | { kind: "database-lost"; error: unknown };

/** The run status an outcome gives; `undefined` means the run does not end here. */
export function runStatusFor(outcome: ExecutionOutcome): RunStatus | undefined {
  switch (outcome.kind) {
    case "completed":
      // A graph that stopped at interrupt() finished its run successfully; the *thread* is interrupted.
      return "success";
    case "failed":
      return "error";
    case "aborted":
      if (outcome.reason === "interrupt") return "interrupted";
      if (outcome.reason === "timeout") return "timeout";
      // rollback deletes the run; shutdown re-queues it; a lost lease means another worker owns it now
      return undefined;
    case "database-lost":
      return undefined;
  }
}

/** The thread status after a run ends. */
export function threadStatusAfter(args: { morePending: boolean; runStatus: RunStatus; stateHasInterrupts: boolean }): ThreadStatus {
  if (args.morePending) return "busy";
  if (args.runStatus === "error" || args.runStatus === "timeout") return "error";
  if (args.stateHasInterrupts) return "interrupted";
  return "idle";
}

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ["success", "error", "timeout", "interrupted"];
export function isTerminal(status: string): boolean {
  return (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);
}

/**
 * What `/wait` and `/join` answer: the final values, plus `__interrupt__` when the run stopped at
 * interrupt() — as the values stream shows it, so clients see why the thread is waiting.
 */
export function withInterrupts(values: unknown, interrupts: Record<string, unknown> | undefined): unknown {
  const all = Object.values(interrupts ?? {}).flat();
  if (all.length === 0 || typeof values !== "object" || values === null || Array.isArray(values)) return values;
  return { ...values, __interrupt__: all };
}
