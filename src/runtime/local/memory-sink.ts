/**
 * A `RevisionSink` that keeps everything in memory: the statuses a revision went through (checked
 * against the rules' state machine, like storage does) and its build and deploy logs. For tests
 * and for running the local runtime without a control plane.
 */
import { transition, type RevisionStatus } from "../../control-plane/rules/index.js";
import type { RevisionSink } from "./deployer.js";

export interface LogLine {
  type: "build" | "deploy";
  line: string;
  level: "INFO" | "ERROR";
  at: Date;
}

export class MemoryRevisionSink implements RevisionSink {
  readonly statuses: RevisionStatus[];
  readonly logs: LogLine[] = [];
  reason?: string;
  commitSha?: string;
  private waiters: (() => void)[] = [];

  constructor(initial: RevisionStatus = "CREATING") {
    this.statuses = [initial];
  }

  get status(): RevisionStatus {
    return this.statuses.at(-1)!;
  }

  async setStatus(status: RevisionStatus, detail: { reason?: string; commitSha?: string } = {}): Promise<void> {
    const t = transition(this.status, status);
    if (!t.ok) throw new Error(t.error);
    if (detail.reason !== undefined) this.reason = detail.reason;
    if (detail.commitSha !== undefined) this.commitSha = detail.commitSha;
    if (!t.changed) return;
    this.statuses.push(status);
    for (const w of this.waiters.splice(0)) w();
  }

  log(type: "build" | "deploy", line: string, level: "INFO" | "ERROR" = "INFO"): void {
    this.logs.push({ type, line, level, at: new Date() });
  }

  /** The lines of one log, as text. */
  text(type: "build" | "deploy"): string {
    return this.logs
      .filter((l) => l.type === type)
      .map((l) => l.line)
      .join("\n");
  }

  /** Resolve once the revision has reached `status` (or any status `until` accepts). */
  async waitFor(until: RevisionStatus | ((s: RevisionStatus) => boolean), timeoutMs = 60_000): Promise<RevisionStatus> {
    const ok = typeof until === "function" ? until : (s: RevisionStatus) => s === until;
    const deadline = Date.now() + timeoutMs;
    while (!ok(this.status)) {
      if (Date.now() > deadline) throw new Error(`revision status is ${this.status} after ${timeoutMs} ms (history: ${this.statuses.join(" → ")})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.status;
  }
}
