/**
 * A per-run timeline of the create→join critical path, for benchmarks (bench/run-timeline.ts):
 * with BERTH_RUN_TIMELINE=<file>, each stage a run passes (request in, run inserted, worker
 * started, graph ran, finish committed, join answered…) is stamped with the time, and the stamps
 * are written to the file as JSON lines when the process exits. Off (the variable unset),
 * `timeline` is undefined and call sites cost one property check: `timeline?.mark(…)`.
 */
import fs from "node:fs";

/** Milliseconds since the epoch, sub-millisecond: comparable with another process's on this machine. */
export const now = (): number => performance.timeOrigin + performance.now();

class RunTimeline {
  private readonly runs = new Map<string, [stage: string, at: number][]>();

  constructor(file: string) {
    process.on("exit", () => {
      const lines = [...this.runs].map(([run_id, marks]) => JSON.stringify({ run_id, marks }));
      fs.writeFileSync(file, lines.join("\n") + "\n");
    });
  }

  /** Stamp `stage` for a run (`at`: when it happened, if not now). */
  mark(runId: string, stage: string, at = now()): void {
    let marks = this.runs.get(runId);
    if (!marks) this.runs.set(runId, (marks = []));
    marks.push([stage, at]);
  }
}

export const timeline: RunTimeline | undefined = process.env.BERTH_RUN_TIMELINE ? new RunTimeline(process.env.BERTH_RUN_TIMELINE) : undefined;
