/**
 * The README's TypeScript snippet ("Using the agent server from TypeScript") runs as the README
 * says to run it: saved as `snippet.mts` and started with tsx, against the example agents that
 * `make serve` serves (here on a random port, embedded database).
 */
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startTestServer, type TestServer } from "../helpers/server.js";
import { scratchDir } from "../runtime/local-repo.js";

const README = readFileSync(path.join(ROOT, "README.md"), "utf8");

describe("the README's TypeScript snippet", () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer("pglite", { configPath: path.join(ROOT, "examples/langgraph.json") });
    dir = scratchDir("readme-snippet");
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs as snippet.mts with tsx, as the README says", async () => {
    const snippet = /```ts\n(import \{ Client \} from "@langchain\/langgraph-sdk";[\s\S]*?)```/.exec(README)?.[1];
    expect(snippet, "the README's TypeScript block").toBeTruthy();
    expect(README).toContain("save it as `snippet.mts`");
    expect(snippet).toContain('apiUrl: "http://127.0.0.1:8123"');
    const file = path.join(dir, "snippet.mts");
    writeFileSync(file, snippet!.replace("http://127.0.0.1:8123", server.url));
    // what `npx tsx snippet.mts` runs
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", file], { cwd: dir, timeout: 120_000 });
    // the approval example stops at its interrupt, then the resumed run approves the draft
    expect(stdout).toMatch(/^interrupted$/m);
    expect(stdout).toContain("Approved: Draft answer to: Can I deploy on Friday?");
    // the chat example answered the streamed run and the waited one (the third prints only nested updates)
    for (const question of ["hello", "and again"]) expect(stdout, question).toContain(`You said: ${question}`);
    expect(stdout).toMatch(/^updates /m);
  }, 180_000);
});
