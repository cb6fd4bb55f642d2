/**
 * One Postgres database per deployment when the control plane runs on a Postgres server (the
 * embedded mode gives each deployment its own PGlite directory instead). Named after the
 * deployment id, created before its first revision starts, dropped when the deployment is deleted.
 */
import pg from "pg";

export function databaseName(deploymentId: string): string {
  return `berth_dep_${deploymentId.replace(/-/g, "")}`;
}

export class DeploymentDatabases {
  constructor(private readonly serverUri: string) {}

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

  /** The deployment's database URI, creating the database on first use. */
  async ensure(deploymentId: string): Promise<string> {
    const name = databaseName(deploymentId);
    await this.admin(async (c) => {
      const { rowCount } = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (!rowCount) {
        // CREATE DATABASE takes no parameters; the name is built from a UUID, so it is safe to inline
        await c.query(`CREATE DATABASE ${name}`).catch((err: { code?: string }) => {
          if (err.code !== "42P04") throw err; // created meanwhile by another process
        });
      }
    });
    const uri = new URL(this.serverUri);
    uri.pathname = `/${name}`;
    return uri.toString();
  }

  async drop(deploymentId: string): Promise<void> {
    await this.admin((c) => c.query(`DROP DATABASE IF EXISTS ${databaseName(deploymentId)} WITH (FORCE)`));
  }
}
