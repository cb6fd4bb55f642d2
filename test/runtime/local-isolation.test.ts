/**
 * The local runtime's file and database isolation: the embedded database is reachable only
 * through a Unix socket in a private directory (no TCP port anyone on the machine could use), its
 * files are private to the control plane's user, and deployments get users of their own.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { deploymentUser, ISOLATION_ID_BASE, prepareDeploymentDir } from "../../src/runtime/local/isolation.js";
import { startEmbeddedPostgres } from "../../src/shared/db/embedded.js";

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every path under `dir` that users other than the owner may read, write or enter. */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const s = statSync(p);
    if (s.mode & 0o007) out.push(`${p} ${(s.mode & 0o777).toString(8)}`);
    if (s.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
  };
  walk(dir);
  return out;
}

describe("embedded database", () => {
  it("listens on a Unix socket in a private directory, not on a TCP port, and keeps its files private", async () => {
    const dataDir = path.join(tempDir("berth-embedded-"), "db");
    const db = await startEmbeddedPostgres(dataDir);
    try {
      const uri = new URL(db.connectionString);
      const socketDir = uri.searchParams.get("host")!;
      expect(socketDir.startsWith("/")).toBe(true);
      expect(statSync(socketDir).mode & 0o777).toBe(0o700);
      const client = new pg.Client({ connectionString: db.connectionString });
      await client.connect();
      await client.query("CREATE TABLE t (x int); INSERT INTO t VALUES (1)");
      await client.end();
      // the data directory admits nobody else, whatever modes PGlite gave the files inside
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      await db.close();
    }
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it("keeps its socket path short enough when TMPDIR is deep (a local deployment's), one socket per database", async () => {
    const deep = path.join(tempDir("berth-deep-"), "d".repeat(60), "tmp");
    mkdirSync(deep, { recursive: true });
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = deep;
    try {
      const a = await startEmbeddedPostgres(path.join(deep, "..", "a"));
      const b = await startEmbeddedPostgres(path.join(deep, "..", "b"));
      try {
        const hosts = [a, b].map((db) => new URL(db.connectionString).searchParams.get("host")!);
        expect(hosts[0]).not.toBe(hosts[1]);
        for (const [i, db] of [a, b].entries()) {
          expect(path.join(hosts[i]!, ".s.PGSQL.5432").length).toBeLessThanOrEqual(103);
          const c = new pg.Client({ connectionString: db.connectionString });
          await c.connect();
          await c.query(`CREATE TABLE only_${i} (x int)`);
          expect((await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'only_%'")).rows[0].n).toBe(1);
          await c.end();
        }
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("makes an older, world-writable data directory private when it opens it", async () => {
    const dataDir = path.join(tempDir("berth-embedded-"), "db");
    const first = await startEmbeddedPostgres(dataDir);
    await first.close();
    // as an older version left it
    chmodSync(dataDir, 0o755);
    chmodSync(path.join(dataDir, "PG_VERSION"), 0o666);
    const again = await startEmbeddedPostgres(dataDir);
    try {
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      await again.close();
    }
  });
});

describe.skipIf(process.getuid?.() !== 0)("deployment users (control plane as root)", () => {
  it("gives each deployment a uid of its own, owning its private directory, stable across restarts", async () => {
    const deployments = path.join(tempDir("berth-users-"), "deployments");
    mkdirSync(deployments, { recursive: true });
    const a = await deploymentUser(deployments, "11111111-1111-4111-8111-111111111111");
    await prepareDeploymentDir(path.join(deployments, "11111111-1111-4111-8111-111111111111"), a);
    const b = await deploymentUser(deployments, "22222222-2222-4222-8222-222222222222");
    await prepareDeploymentDir(path.join(deployments, "22222222-2222-4222-8222-222222222222"), b);
    expect(a.uid).toBeGreaterThanOrEqual(ISOLATION_ID_BASE);
    expect(b.uid).not.toBe(a.uid);
    const dirA = path.join(deployments, "11111111-1111-4111-8111-111111111111");
    expect(statSync(dirA).uid).toBe(a.uid);
    expect(statSync(dirA).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dirA, "home")).uid).toBe(a.uid);
    // the owner of the directory is the deployment's user from now on
    expect(await deploymentUser(deployments, "11111111-1111-4111-8111-111111111111")).toEqual(a);
    // files written there by the control plane (a checkout) are handed over
    writeFileSync(path.join(dirA, "revisions", "f"), "x");
    const { chownTree } = await import("../../src/runtime/local/isolation.js");
    await chownTree(path.join(dirA, "revisions"), a);
    expect(statSync(path.join(dirA, "revisions", "f")).uid).toBe(a.uid);
  });
});

describe("loopback peers", () => {
  it("finds the owner of a client socket in the kernel's table", async () => {
    const { peerUidIn } = await import("../../src/shared/auth/peer.js");
    const table = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1",
      "   1: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 200123        0 2 1",
      "   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 3 1",
    ].join("\n");
    expect(peerUidIn(table, 0xd431, 0x1f90)).toBe(200123);
    expect(peerUidIn(table, 0xd432, 0x1f90)).toBeUndefined();
  });
});
