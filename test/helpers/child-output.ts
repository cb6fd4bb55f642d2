/**
 * Output of the processes tests start (`berth serve`, `berth dev`, ...): kept in memory and printed
 * only when a test fails, so a passing run prints nothing but the reporter. `BERTH_TEST_LOG=<level>`
 * (debug, info, warn...) streams it live instead, at that level where the helper sets one.
 *
 * The setup file (test/helpers/setup.ts) prints, for a failed test, what every captured process
 * wrote while that test ran (the last lines of it).
 */
import type { ChildProcess } from "node:child_process";

export const liveLogs = (): boolean => Boolean(process.env.BERTH_TEST_LOG);

/** The log level for children: the one asked for with BERTH_TEST_LOG, else `quiet`. */
export const childLogLevel = (quiet = "warn"): string => process.env.BERTH_TEST_LOG || quiet;

interface Captured {
  label: string;
  lines: string[];
  /** Index into `lines` where the current test began. */
  mark: number;
}

const MAX_LINES = 5000;
const captured: Captured[] = [];

/**
 * Collect what `child` writes on its piped stdout/stderr (spawn it with "pipe" for both). Returns a
 * function giving the output so far, e.g. for an error about a child that did not start.
 */
export function captureOutput(child: ChildProcess, label: string): () => string {
  const c: Captured = { label: `${label} (pid ${child.pid})`, lines: [], mark: 0 };
  captured.push(c);
  for (const [name, stream] of [
    ["stdout", child.stdout],
    ["stderr", child.stderr],
  ] as const) {
    if (!stream) continue;
    let rest = "";
    stream.on("data", (chunk: Buffer) => {
      if (liveLogs()) process.stderr.write(chunk);
      const parts = (rest + chunk.toString("utf8")).split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) push(c, name === "stderr" ? `[stderr] ${line}` : line);
    });
    stream.on("end", () => {
      if (rest) push(c, name === "stderr" ? `[stderr] ${rest}` : rest);
      rest = "";
    });
  }
  return () => c.lines.join("\n");
}

function push(c: Captured, line: string): void {
  c.lines.push(line);
  if (c.lines.length > MAX_LINES) {
    const drop = c.lines.length - MAX_LINES;
    c.lines.splice(0, drop);
    c.mark = Math.max(0, c.mark - drop);
  }
}

/** A test begins: only what children write from now on belongs to it. */
export function markTestStart(): void {
  for (const c of captured) c.mark = c.lines.length;
}

/** What the children wrote during the current test (their last `maxLines` lines each), or "". */
export function outputSinceTestStart(maxLines = 200): string {
  const parts: string[] = [];
  for (const c of captured) {
    const lines = c.lines.slice(c.mark);
    if (lines.length === 0) continue;
    const shown = lines.slice(-maxLines);
    const skipped = lines.length - shown.length;
    parts.push(`--- output of ${c.label}${skipped ? ` (last ${shown.length} of ${lines.length} lines)` : ""} ---\n${shown.join("\n")}`);
  }
  return parts.join("\n");
}
