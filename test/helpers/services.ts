/**
 * The real services tests run against. Postgres and Redis run on every developer machine and in
 * CI; with CI=true a missing one fails the run, elsewhere the suites that need them are skipped
 * with a visible reason.
 */
import net from "node:net";

export const POSTGRES_ADMIN_URI = process.env.BERTH_TEST_POSTGRES_URI ?? "postgresql://postgres@127.0.0.1:5432/postgres";
export const REDIS_URI = process.env.BERTH_TEST_REDIS_URI ?? "redis://127.0.0.1:6379";

function reachable(uri: string): Promise<boolean> {
  const u = new URL(uri);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) }, () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export async function servicesAvailable(): Promise<{ postgres: boolean; redis: boolean }> {
  const [postgres, redis] = await Promise.all([reachable(POSTGRES_ADMIN_URI), reachable(REDIS_URI)]);
  return { postgres, redis };
}

export const inCI = process.env.CI === "true" || process.env.CI === "1";
