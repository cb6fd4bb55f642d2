/**
 * The README's quick-start walk-through, run as written: its shell block goes to bash against
 * `berth dev` (random port, scratch data), from a git checkout of this repository's examples, and
 * what it prints must be the `#>` lines the README shows, up to what differs from run to run (ids,
 * ports, latencies, how far the queued runs got). A README whose steps or outputs drift fails here.
 */
import { execFile } from "node:child_process";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { ROOT } from "../helpers/server.js";
import { createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

const README = readFileSync(path.join(ROOT, "README.md"), "utf8");

/** The walk-through: the shell block that starts by naming the control plane's URL. */
function walkthrough(): string {
  const block = /```sh\n(BERTH=http:\/\/127\.0\.0\.1:8080\n[\s\S]*?)```/.exec(README);
  if (!block) throw new Error("README.md has no walk-through block starting with BERTH=http://127.0.0.1:8080");
  return block[1]!;
}

/** What a run prints, with what legitimately differs between runs replaced by placeholders. */
function normalize(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "")
    .map((l) =>
      l
        .replace(/'[0-9a-f]{8}'/g, "'<id>'")
        .replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://127.0.0.1:<port>")
        .replace(/('success', )\d+/g, "$1<ms>")
        // three queued runs, newest first: how far the older ones got depends on the machine
        .replace(/^\[ '(pending|running|success)', '(pending|running|success)', '(pending|running|success)' \]$/, "[ <status>, <status>, <status> ]"),
    );
}

function examplesFiles(): Record<string, string> {
  const dir = path.join(ROOT, "examples");
  const files: Record<string, string> = { "package.json": JSON.stringify({ name: "berth-readme-walk", private: true, type: "module" }) };
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue; // examples/.berth (make serve's data)
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files[path.join("examples", path.relative(dir, p))] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return files;
}

describe("the README's quick start", () => {
  let dir: string;
  let repo: TestRepo;
  let dev: ControlPlaneServerHandle;

  beforeAll(async () => {
    dir = scratchDir("readme-walk");
    repo = createRepo(dir, examplesFiles());
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent" }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 500 },
      pollMs: 300,
    });
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints what the README says it prints, step by step", async () => {
    const script = walkthrough();
    const expected = [...script.matchAll(/^#> ?(.*)$/gm)].map((m) => m[1]!);
    expect(expected.length).toBeGreaterThan(8);
    const run = script.replace("BERTH=http://127.0.0.1:8080", `BERTH=${dev.url}`).replaceAll("/tmp/deployment.json", `${dir}/deployment.json`).replaceAll(".berth/admin.key", `${dir}/.berth/admin.key`);
    const { stdout } = await promisify(execFile)("bash", ["-euo", "pipefail", "-c", run], {
      cwd: repo.dir,
      env: { ...process.env, PWD: repo.dir },
      timeout: 600_000,
    });
    expect(normalize(stdout)).toEqual(normalize(expected.join("\n")));
  }, 700_000);
});
