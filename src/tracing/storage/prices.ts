/**
 * The model price table: defaults shipped with Berth (from a maintained price source) plus each
 * tenant's own entries, which win. Editing a default means adding a tenant entry for the model.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { NotFoundError } from "../../shared/errors.js";
import { findPrice, type ModelPrice } from "../accounting/cost.js";
import { defaultPrices } from "../prices/seed.js";

/** A price as a tenant writes it: a table entry without its id, and a display name. */
export type PriceInput = Omit<ModelPrice, "id"> & { model_name: string };

export interface StoredPrice extends ModelPrice {
  model_name: string;
  source: "default" | "tenant";
  created_at?: string;
  updated_at?: string;
}

const CACHE_MS = 30_000;

function fromRow(r: Record<string, any>): StoredPrice {
  return {
    id: r.id,
    model_name: r.model_name,
    match_pattern: r.match_pattern,
    provider: r.provider,
    effective_from: r.effective_from ? new Date(r.effective_from).toISOString() : null,
    input_per_million: Number(r.input_per_million),
    output_per_million: Number(r.output_per_million),
    input_details_per_million: r.input_details_per_million ?? {},
    output_details_per_million: r.output_details_per_million ?? {},
    source: "tenant",
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

let defaults: StoredPrice[] | undefined;
export function defaultPriceTable(): StoredPrice[] {
  defaults ??= defaultPrices().map((p) => ({ ...p, model_name: (p as { model_name?: string }).model_name ?? p.match_pattern, source: "default" as const }));
  return defaults;
}

/** The tenant's entries when one matches the model, otherwise the defaults (pure). */
export function choosePrices(own: ModelPrice[], model: string | undefined, provider: string | undefined, at: Date): ModelPrice[] {
  return own.length && findPrice(own, model, provider, at) ? own : defaultPriceTable();
}

export class PriceStore {
  private cache = new Map<string, { at: number; prices: StoredPrice[] }>();

  constructor(private readonly pool: pg.Pool) {}

  async tenantPrices(tenantId: string): Promise<StoredPrice[]> {
    const hit = this.cache.get(tenantId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.prices;
    const { rows } = await this.pool.query("SELECT * FROM tracing_model_prices WHERE tenant_id = $1 ORDER BY model_name, effective_from NULLS FIRST", [tenantId]);
    const prices = rows.map(fromRow);
    this.cache.set(tenantId, { at: Date.now(), prices });
    return prices;
  }

  /**
   * The prices to cost a model with: the tenant's entries when one of them matches the model,
   * otherwise the defaults. (A tenant entry always beats a default, whatever their dates.)
   */
  async pricesFor(tenantId: string, model: string | undefined, provider: string | undefined, at: Date): Promise<ModelPrice[]> {
    return choosePrices(await this.tenantPrices(tenantId), model, provider, at);
  }

  async list(tenantId: string): Promise<StoredPrice[]> {
    return [...(await this.tenantPrices(tenantId)), ...defaultPriceTable()];
  }

  async create(tenantId: string, input: PriceInput): Promise<StoredPrice> {
    const { rows } = await this.pool.query(
      `INSERT INTO tracing_model_prices (id, tenant_id, model_name, match_pattern, provider, effective_from, input_per_million,
         output_per_million, input_details_per_million, output_details_per_million)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
      [
        randomUUID(),
        tenantId,
        input.model_name,
        input.match_pattern,
        input.provider ?? null,
        input.effective_from ?? null,
        input.input_per_million,
        input.output_per_million,
        JSON.stringify(input.input_details_per_million ?? {}),
        JSON.stringify(input.output_details_per_million ?? {}),
      ],
    );
    this.cache.delete(tenantId);
    return fromRow(rows[0]);
  }

  async update(tenantId: string, id: string, input: Partial<PriceInput>): Promise<StoredPrice> {
    const sets: string[] = [];
    const values: unknown[] = [tenantId, id];
    for (const [k, v] of Object.entries(input)) {
      if (v === undefined) continue;
      values.push(k.endsWith("_details_per_million") ? JSON.stringify(v ?? {}) : v);
      sets.push(`${k} = $${values.length}`);
    }
    const { rows } = await this.pool.query(
      `UPDATE tracing_model_prices SET ${[...sets, "updated_at = now()"].join(", ")} WHERE tenant_id = $1 AND id = $2 RETURNING *`,
      values,
    );
    if (!rows[0]) throw new NotFoundError(`Model price ${id} not found.`);
    this.cache.delete(tenantId);
    return fromRow(rows[0]);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    const { rowCount } = await this.pool.query("DELETE FROM tracing_model_prices WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rowCount) throw new NotFoundError(`Model price ${id} not found.`);
    this.cache.delete(tenantId);
  }
}
