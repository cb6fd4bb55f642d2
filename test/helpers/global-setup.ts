import { inCI, servicesAvailable } from "./services.js";

/** Fail fast in CI when Postgres or Redis is missing; say so loudly elsewhere. */
export default async function setup(): Promise<void> {
  // The example chat agent would use a real model if a provider key were in the environment.
  process.env.BERTH_CHAT_MODEL = "echo";
  const { postgres, redis } = await servicesAvailable();
  const missing = [!postgres && "PostgreSQL (127.0.0.1:5432)", !redis && "Redis (127.0.0.1:6379)"].filter(Boolean);
  if (missing.length === 0) {
    process.env.BERTH_TEST_SERVICES = "1";
    return;
  }
  if (inCI) throw new Error(`CI=true but ${missing.join(" and ")} is not reachable: start it (see README) — tests are not skipped in CI`);
  console.warn(`\n⚠ ${missing.join(" and ")} not reachable: the Postgres/Redis suites are SKIPPED on this machine.\n`);
  process.env.BERTH_TEST_SERVICES = "0";
}
