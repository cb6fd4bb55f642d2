/**
 * One Postgres database per deployment when the control plane runs on a Postgres server (the
 * embedded mode gives each deployment its own PGlite directory instead). Named after the
 * deployment id, created before its first revision starts, dropped when the deployment is deleted.
 *
 * Each database belongs to a role of its own (`berth_dep_<id>`, random password kept in the
 * control plane's keys directory), and only that role may connect to it: the deployment's agent
 * server never holds the control plane's credentials, and cannot open another deployment's
 * database. Where the control plane's user may not create roles (no CREATEROLE), or for a database
 * made by an older version, the deployment gets the control plane's credentials as before.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

export function databaseName(deploymentId: string): string {
  return `berth_dep_${deploymentId.replace(/-/g, "")}`;
}

/** The role of a deployment's database: the same name (roles and databases are apart). */
export const roleName = databaseName;

export class DeploymentDatabases {
  /** @param keysDir where each role's password is kept (0700); without it, no roles are made. */
  constructor(
    private readonly serverUri: string,
    private readonly keysDir?: string,
  ) {}

  private async admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.serverUri });
    // The server going away mid-statement rejects that statement; unlistened, the client's
    // 'error' event would also crash the process.
    client.on("error", () => undefined);
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The deployment's database URI, creating the database (and its role) on first use. */
  async ensure(deploymentId: string): Promise<string> {
    const name = databaseName(deploymentId);
    const uri = new URL(this.serverUri);
    uri.pathname = `/${name}`;
    const role = await this.admin(async (c) => {
      const { rows } = await c.query<{ owner: string }>("SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1", [name]);
      const existing = rows[0]?.owner;
      // made by an older version: it stays the control plane's
      const own = existing === undefined || existing === name ? await this.ensureRole(c, deploymentId) : undefined;
      if (existing === undefined) {
        // CREATE DATABASE takes no parameters; the names are built from a UUID, so they are safe to inline
        await c.query(`CREATE DATABASE ${name}${own ? ` OWNER ${name}` : ""}`).catch((err: { code?: string }) => {
          if (err.code !== "42P04") throw err; // created meanwhile by another process
        });
      }
      if (own) await c.query(`REVOKE ALL ON DATABASE ${name} FROM PUBLIC`);
      return own;
    });
    if (role) {
      uri.username = encodeURIComponent(role.name);
      uri.password = encodeURIComponent(role.password);
    }
    return uri.toString();
  }

  /** The deployment's role with its kept password; undefined when roles cannot be made here. */
  private async ensureRole(c: pg.Client, deploymentId: string): Promise<{ name: string; password: string } | undefined> {
    if (!this.keysDir) return undefined;
    const name = roleName(deploymentId);
    const file = path.join(this.keysDir, `${deploymentId}.db.key`);
    let password = (await readFile(file, "utf8").catch(() => "")).trim();
    if (!password) {
      password = randomBytes(24).toString("base64url");
      await mkdir(this.keysDir, { recursive: true, mode: 0o700 });
      await writeFile(file, `${password}\n`, { mode: 0o600 });
    }
    const { rowCount } = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [name]);
    const sql = (await c.query<{ q: string }>(`SELECT format('${rowCount ? "ALTER" : "CREATE"} ROLE %I LOGIN PASSWORD %L', $1::text, $2::text) AS q`, [name, password])).rows[0]!.q;
    try {
      await c.query(sql);
      // CREATE DATABASE … OWNER needs the creator to be able to act as the owner (Postgres 16+ with CREATEROLE)
      await c.query(`GRANT ${name} TO CURRENT_USER`).catch(() => undefined);
    } catch (err) {
      if ((err as { code?: string }).code === "42501") return undefined; // no CREATEROLE: the control plane's credentials
      throw err;
    }
    return { name, password };
  }

  async drop(deploymentId: string): Promise<void> {
    await this.admin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${databaseName(deploymentId)} WITH (FORCE)`);
      await c.query(`DROP ROLE IF EXISTS ${roleName(deploymentId)}`);
    });
    if (this.keysDir) await rm(path.join(this.keysDir, `${deploymentId}.db.key`), { force: true });
  }
}
