/**
 * Runs in every test file before its tests (vitest `setupFiles`).
 *
 * - Quiet output: processes tests start keep their output in memory (child-output.ts); when a test
 *   fails, what they wrote during it is printed with the failure.
 * - Waits sized for a busy machine: Testing Library's `findBy…`/`waitFor` give up after 1 s by
 *   default, which a loaded CI machine can exceed while rendering; here they wait up to 15 s (a hang
 *   guard: they return as soon as the condition holds).
 */
import { beforeEach } from "vitest";
import { markTestStart, outputSinceTestStart } from "./child-output.js";

export const UI_WAIT_MS = 15_000;

beforeEach((ctx) => {
  markTestStart();
  ctx.onTestFailed(() => {
    const out = outputSinceTestStart();
    if (out) console.error(`output of the processes this test started:\n${out}`);
  });
});

if ("document" in globalThis) {
  const { configure } = await import("@testing-library/react");
  configure({ asyncUtilTimeout: UI_WAIT_MS });
}
