/**
 * A run's event writer after a failed write (the database went away mid-run): flushing reports the
 * failure every time. It used to leave a settled promise behind that flush() awaited in an endless
 * microtask loop, freezing the whole worker process.
 */
import { execFile } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../helpers/server.js";

const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

it("a run emitter keeps reporting a failed event write instead of hanging the process", async () => {
  const uri = `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`;
  const script = path.join(ROOT, "test/fixtures/emitter-after-failure.ts");
  // The deadline only guards against the hang this test is about; the script takes a second.
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ["--import", "tsx", script, uri], { cwd: ROOT, timeout: 60_000, killSignal: "SIGKILL" }, (err, stdout, stderr) =>
      err ? reject(new Error(`emitter script did not finish (${err.signal ?? err.code}): ${stderr}`)) : resolve(stdout),
    ),
  );
  const { first, second } = JSON.parse(out) as { first: string; second: string };
  expect(first).toMatch(/^failed: .*ECONNREFUSED/);
  expect(second).toBe(first);
}, 90_000);
