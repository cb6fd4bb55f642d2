import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { inCI, servicesAvailable } from "./services.js";

/**
 * Fail fast in CI when Postgres or Redis is missing; say so loudly elsewhere. Returns the teardown.
 *
 * Every temporary file of the run (test servers' data, the embedded database's socket directories,
 * private clusters, console builds) goes under one directory of its own, removed when the run ends:
 * a server a test kills on purpose cannot remove its own, and a test worker ended by vitest runs no
 * exit hooks, so each run used to leave ~30 directories in /tmp.
 */
export default async function setup(): Promise<() => void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "berth-test-run-"));
  // as /tmp is: a private Postgres cluster runs as another user and must reach its directory here
  chmodSync(tmp, 0o1777);
  process.env.TMPDIR = tmp; // (the test workers and every process they start inherit it)
  const teardown = () => rmSync(tmp, { recursive: true, force: true });
  // The example chat agent would use a real model if a provider key were in the environment.
  process.env.BERTH_CHAT_MODEL = "echo";
  const { postgres, redis } = await servicesAvailable();
  const missing = [!postgres && "PostgreSQL (127.0.0.1:5432)", !redis && "Redis (127.0.0.1:6379)"].filter(Boolean);
  if (missing.length === 0) {
    process.env.BERTH_TEST_SERVICES = "1";
    return teardown;
  }
  if (inCI) {
    teardown();
    throw new Error(`CI=true but ${missing.join(" and ")} is not reachable: start it (see README) — tests are not skipped in CI`);
  }
  console.warn(`\n⚠ ${missing.join(" and ")} not reachable: the Postgres/Redis suites are SKIPPED on this machine.\n`);
  process.env.BERTH_TEST_SERVICES = "0";
  return teardown;
}
