/** Assistants and their versions. */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { containsPattern, withTransaction, type Queryable } from "../../shared/db/index.js";
import { ConflictError, NotFoundError, ValidationError, isUniqueViolation } from "../../shared/errors.js";
import { isUuid } from "../../shared/http.js";
import { systemAssistantId } from "../graphs/registry.js";
import type { AuthFilters } from "../auth/filters.js";
import { SqlBuilder, orderBy } from "./sql.js";

export interface Assistant {
  assistant_id: string;
  graph_id: string;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  name: string;
  description: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "assistant_id, graph_id, config, context, metadata, name, description, version, created_at, updated_at";

export class AssistantStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly knownGraph: (graphId: string) => boolean,
  ) {}

  /** Resolve what a client passed as assistant id: a UUID, or a graph id meaning its system assistant. */
  resolveId(idOrGraph: string): string {
    if (isUuid(idOrGraph)) return idOrGraph.toLowerCase();
    if (this.knownGraph(idOrGraph)) return systemAssistantId(idOrGraph);
    throw new NotFoundError(`Assistant "${idOrGraph}" not found: it is neither an assistant id nor a graph id of this deployment`);
  }

  async get(idOrGraph: string, db: Queryable = this.pool): Promise<Assistant> {
    const id = this.resolveId(idOrGraph);
    const { rows } = await db.query<Assistant>(`SELECT ${COLUMNS} FROM assistants WHERE assistant_id = $1`, [id]);
    if (!rows[0]) throw new NotFoundError(`Assistant ${idOrGraph} not found`);
    return rows[0];
  }

  /**
   * An assistant with its row version (`xmin`: it changes with every update of the row, whoever
   * makes it), so a copy kept in memory can be checked against the table in a later statement.
   */
  async getVersioned(idOrGraph: string): Promise<{ assistant: Assistant; rowVersion: string }> {
    const id = this.resolveId(idOrGraph);
    const { rows } = await this.pool.query<Assistant & { row_version: string }>(
      `SELECT ${COLUMNS}, xmin::text AS row_version FROM assistants WHERE assistant_id = $1`,
      [id],
    );
    if (!rows[0]) throw new NotFoundError(`Assistant ${idOrGraph} not found`);
    const { row_version: rowVersion, ...assistant } = rows[0];
    return { assistant, rowVersion };
  }

  async create(input: {
    assistant_id?: string;
    graph_id: string;
    config?: Record<string, unknown>;
    context?: Record<string, unknown>;
    metadata?: Record<string, unknown>;
    name?: string;
    description?: string | null;
    if_exists: "raise" | "do_nothing";
  }): Promise<Assistant> {
    if (!this.knownGraph(input.graph_id)) {
      throw ValidationError.field(["body", "graph_id"], `graph "${input.graph_id}" does not exist in this deployment`);
    }
    const id = input.assistant_id ?? randomUUID();
    try {
      return await withTransaction(this.pool, async (c) => {
        const values = [
          id,
          input.graph_id,
          input.config ?? {},
          input.context ?? {},
          input.metadata ?? {},
          input.name ?? "Untitled",
          input.description ?? null,
        ];
        const { rows } = await c.query<Assistant>(
          `INSERT INTO assistants (assistant_id, graph_id, config, context, metadata, name, description)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
          values,
        );
        await c.query(
          `INSERT INTO assistant_versions (assistant_id, version, graph_id, config, context, metadata, name, description)
           VALUES ($1, 1, $2, $3, $4, $5, $6, $7)`,
          values,
        );
        return rows[0]!;
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (input.if_exists === "do_nothing") return this.get(id);
      throw new ConflictError(`Assistant ${id} already exists`);
    }
  }

  /** One system assistant per graph, with a deterministic id; kept if it already exists. */
  async ensureSystemAssistant(
    graphId: string,
    description: string | undefined,
    config: Record<string, unknown> = {},
    context?: Record<string, unknown>,
  ): Promise<void> {
    await this.create({
      assistant_id: systemAssistantId(graphId),
      graph_id: graphId,
      name: graphId,
      description: description ?? null,
      metadata: { created_by: "system" },
      config,
      ...(context ? { context } : {}),
      if_exists: "do_nothing",
    });
  }

  /** A patch makes a new version (which becomes the current one). Metadata is merged. */
  async patch(
    idOrGraph: string,
    patch: {
      graph_id?: string;
      config?: Record<string, unknown>;
      context?: Record<string, unknown>;
      metadata?: Record<string, unknown>;
      name?: string;
      description?: string | null;
    },
  ): Promise<Assistant> {
    const id = this.resolveId(idOrGraph);
    if (patch.graph_id !== undefined && !this.knownGraph(patch.graph_id)) {
      throw ValidationError.field(["body", "graph_id"], `graph "${patch.graph_id}" does not exist in this deployment`);
    }
    return withTransaction(this.pool, async (c) => {
      const { rows: cur } = await c.query<Assistant>(`SELECT ${COLUMNS} FROM assistants WHERE assistant_id = $1 FOR UPDATE`, [id]);
      const current = cur[0];
      if (!current) throw new NotFoundError(`Assistant ${idOrGraph} not found`);
      const { rows: maxRows } = await c.query<{ max: number }>(
        "SELECT max(version) AS max FROM assistant_versions WHERE assistant_id = $1",
        [id],
      );
      const version = Number(maxRows[0]?.max ?? 0) + 1;
      const next = {
        graph_id: patch.graph_id ?? current.graph_id,
        config: patch.config ?? current.config,
        context: patch.context ?? current.context,
        metadata: { ...current.metadata, ...(patch.metadata ?? {}) },
        name: patch.name ?? current.name,
        description: patch.description !== undefined ? patch.description : current.description,
      };
      const params = [id, version, next.graph_id, next.config, next.context, next.metadata, next.name, next.description];
      await c.query(
        `INSERT INTO assistant_versions (assistant_id, version, graph_id, config, context, metadata, name, description)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        params,
      );
      const { rows } = await c.query<Assistant>(
        `UPDATE assistants SET version = $2, graph_id = $3, config = $4, context = $5, metadata = $6, name = $7,
           description = $8, updated_at = now() WHERE assistant_id = $1 RETURNING ${COLUMNS}`,
        params,
      );
      return rows[0]!;
    });
  }

  async delete(idOrGraph: string): Promise<string> {
    const id = this.resolveId(idOrGraph);
    const { rowCount } = await this.pool.query("DELETE FROM assistants WHERE assistant_id = $1", [id]);
    if (!rowCount) throw new NotFoundError(`Assistant ${idOrGraph} not found`);
    return id;
  }

  private filters(q: { metadata?: Record<string, unknown>; graph_id?: string; name?: string; authFilters?: AuthFilters }): SqlBuilder {
    const b = new SqlBuilder();
    b.andAuth(q.authFilters);
    if (q.metadata && Object.keys(q.metadata).length) b.and(`metadata @> ${b.p(q.metadata)}`);
    if (q.graph_id) b.and(`graph_id = ${b.p(q.graph_id)}`);
    if (q.name) b.and(`name ILIKE ${b.p(containsPattern(q.name))}`);
    return b;
  }

  async search(q: {
    metadata?: Record<string, unknown>;
    graph_id?: string;
    name?: string;
    limit: number;
    offset: number;
    sort_by?: string;
    sort_order?: "asc" | "desc";
    authFilters?: AuthFilters;
  }): Promise<{ items: Assistant[]; total: number }> {
    const b = this.filters(q);
    const order = orderBy(q.sort_by, ["assistant_id", "graph_id", "name", "created_at", "updated_at"], "created_at", q.sort_order);
    const { rows } = await this.pool.query<Assistant & { total: number }>(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM assistants ${b.whereSql()} ${order}, assistant_id
       LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
      b.params,
    );
    const total = rows[0]?.total ?? (q.offset > 0 ? await this.count(q) : 0);
    return { items: rows.map(({ total: _t, ...a }) => a), total: Number(total) };
  }

  async count(q: { metadata?: Record<string, unknown>; graph_id?: string; name?: string; authFilters?: AuthFilters }): Promise<number> {
    const b = this.filters(q);
    const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*) AS n FROM assistants ${b.whereSql()}`, b.params);
    return Number(rows[0]!.n);
  }

  async versions(idOrGraph: string, q: { metadata?: Record<string, unknown>; limit: number; offset: number }) {
    const id = this.resolveId(idOrGraph);
    const b = new SqlBuilder();
    b.and(`assistant_id = ${b.p(id)}`);
    if (q.metadata && Object.keys(q.metadata).length) b.and(`metadata @> ${b.p(q.metadata)}`);
    const { rows } = await this.pool.query(
      `SELECT assistant_id, version, graph_id, config, context, metadata, name, description, created_at
       FROM assistant_versions ${b.whereSql()} ORDER BY version DESC LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
      b.params,
    );
    if (rows.length === 0 && q.offset === 0) await this.get(id); // 404 for an unknown assistant
    return rows;
  }

  async setLatest(idOrGraph: string, version: number): Promise<Assistant> {
    const id = this.resolveId(idOrGraph);
    const { rows } = await this.pool.query<Assistant>(
      `UPDATE assistants a SET version = v.version, graph_id = v.graph_id, config = v.config, context = v.context,
         metadata = v.metadata, name = v.name, description = v.description, updated_at = now()
       FROM assistant_versions v WHERE a.assistant_id = $1 AND v.assistant_id = a.assistant_id AND v.version = $2
       RETURNING a.assistant_id, a.graph_id, a.config, a.context, a.metadata, a.name, a.description, a.version, a.created_at, a.updated_at`,
      [id, version],
    );
    if (!rows[0]) {
      await this.get(id);
      throw new NotFoundError(`Assistant ${idOrGraph} has no version ${version}`);
    }
    return rows[0];
  }
}
