/** `berth tracing` runs the facility alone, on the embedded database, and says how to use it. */
import { fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { BERTH_BIN } from "../helpers/server.js";

it("berth tracing starts on PGlite, answers /info under its prefix and stops on SIGTERM", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-tracing-cli-"));
  const child = fork(BERTH_BIN, ["tracing", "--port", "0", "--data-dir", dir, "--prefix", "/tracing"], {
    env: { ...process.env, BERTH_FROM_SOURCE: "1", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready: ${output}`)), 150_000);
      child.on("message", (m: { type?: string; url?: string }) => m?.type === "ready" && (clearTimeout(timer), resolve(m.url!)));
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${output}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tracing$/);
    const info: any = await (await fetch(`${url}/info`)).json();
    expect(info.instance_flags.gzip_body_enabled).toBe(true);
    expect((await fetch(`${url}/docs`)).status).toBe(200);
    expect(((await (await fetch(`${url}/openapi.json`)).json()) as any).paths["/runs/multipart"]).toBeDefined();
    expect(output).toContain(`LANGSMITH_ENDPOINT=${url}`);
    expect(output).toMatch(/need no API key/);
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  } finally {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
});

it("berth tracing refuses a bad setting with a message naming it", async () => {
  const child = fork(BERTH_BIN, ["tracing", "--port", "99999"], { env: { ...process.env, BERTH_FROM_SOURCE: "1" }, stdio: ["ignore", "pipe", "pipe", "ipc"] });
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const code = await new Promise((r) => child.once("exit", r));
  expect(code).toBe(2);
  expect(err).toMatch(/--port: must be at most 65535/);
});
