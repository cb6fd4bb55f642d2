/**
 * First token: a stream's reader gets each token as the graph emits it, with no I/O on the way — no
 * database read, no bus subscription to confirm — because a model streaming fast (tokens from promise
 * chains, as any in-process or buffered model does) keeps every I/O reply of the server's process
 * waiting until its burst ends. The `hold` graph streams a token and then holds the event loop until
 * the client, having that token, writes a file; the server runs in its own process.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, servicesUp, startChild, userMessage, type ChildServer, type TestDatabase } from "../helpers/server.js";

const setups: { name: string; backend: "pglite" | "postgres"; redis: boolean }[] = [
  { name: "PGlite", backend: "pglite", redis: false },
  { name: "Postgres + Redis", backend: "postgres", redis: true },
  { name: "Postgres, LISTEN/NOTIFY", backend: "postgres", redis: false },
];

for (const setup of setups) {
  const d = setup.backend === "postgres" && !servicesUp() ? describe.skip : describe;
  d(`first token [${setup.name}]`, () => {
    let db: TestDatabase | undefined;
    let child: ChildServer | undefined;
    let dir: string | undefined;
    afterEach(async () => {
      await child?.stop("SIGKILL");
      await db?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
      child = db = dir = undefined;
    });

    it("POST …/runs/stream delivers the first token while the graph still holds the event loop", async () => {
      db = await createTestDatabase(setup.backend);
      if (!setup.redis) db.redisUri = undefined;
      child = await startChild("serve", db, setup.redis ? {} : { REDIS_URI: "" });
      dir = await mkdtemp(path.join(os.tmpdir(), "berth-first-token-"));
      const releaseFile = path.join(dir, "release");
      const client = new Client({ apiUrl: child.url!, callerOptions: { maxRetries: 0 } });
      const thread = await client.threads.create();
      const tokens: string[] = [];
      const stream = client.runs.stream(thread.thread_id, "hold", {
        input: userMessage("go"),
        streamMode: ["messages-tuple"],
        config: { configurable: { release_file: releaseFile, hold_ms: 20_000 } },
      });
      for await (const part of stream) {
        if (part.event !== "messages") continue;
        tokens.push((part.data as unknown as [{ content: string }])[0].content);
        if (tokens.length === 1) await writeFile(releaseFile, "");
      }
      // the graph saw the file (not its deadline): the first token had reached us while it held the loop
      expect(tokens.at(-1)).toBe(" released");
      expect(tokens[0]).toBe(" t0");
    }, 120_000);
  });
}
