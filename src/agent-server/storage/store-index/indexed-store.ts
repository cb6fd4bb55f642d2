/**
 * LangGraph's PostgresStore with semantic search (`store.index` of langgraph.json), the store both
 * the HTTP API and graphs (`getStore()`, through LangGraph's batching wrapper, i.e. `batch()`) use:
 * - a put embeds the item's fields first, then writes the item and its vectors in one transaction:
 *   an embedding failure or a vector of the wrong size leaves the previous item untouched;
 * - a search with a `query` ranks by cosine similarity (see vectors.ts) and sets `score`;
 * - everything else (gets, deletes, searches without a query, namespaces) is the library's.
 * The library's own vector support is not used: it needs pgvector, writes item and vectors outside
 * a transaction, and silently skips vectors of the wrong size.
 */
import type { Operation, PutOperation, SearchItem } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import pg from "pg";
import { inTransaction } from "../../../shared/db/index.js";
import { BerthPostgresStore } from "../postgres-store.js";
import { ApiError } from "../../../shared/errors.js";
import { checkNamespace, refreshItems } from "../store-items.js";
import type { Embedder } from "./embedder.js";
import { parseFieldPath, textsAtPath } from "./field-paths.js";
import { normalize, replaceVectors, searchByVector, setupVectorTable, type VectorMode, type VectorQuery } from "./vectors.js";

export interface StoreIndex {
  embedder: Embedder;
  dims: number;
  /** Default `["$"]`: the whole value. */
  fields: string[];
}

/**
 * The embedding provider failed or answered with unusable vectors: a 502 to HTTP clients (the
 * request was fine, the upstream was not), an ordinary error in a graph.
 */
export class EmbeddingError extends ApiError {
  constructor(detail: string) {
    super(502, `store.index: ${detail}`);
    this.name = "EmbeddingError";
  }
}

type PostgresStoreConfig = ConstructorParameters<typeof PostgresStore>[0];
/** The library's internals we run inside our transaction, so an item row is written exactly as it writes one (TTL included). */
interface LibraryInternals {
  core: { pool: pg.Pool };
  crudOps: { executePut(client: pg.PoolClient, op: PutOperation & { options?: { ttl?: number } }): Promise<void> };
}

export class IndexedPostgresStore extends BerthPostgresStore {
  private mode: VectorMode = "sql";
  private vectorTableReady = false;

  constructor(
    config: PostgresStoreConfig,
    readonly index: StoreIndex,
    /** `store.ttl.refresh_on_read`: a graph's semantic search refreshes what it finds, as the library's searches do. */
    refreshOnRead = false,
  ) {
    super(config, refreshOnRead);
    const lib = this as unknown as Partial<LibraryInternals>;
    if (!(lib.core?.pool instanceof pg.Pool) || typeof lib.crudOps?.executePut !== "function") {
      throw new Error("PostgresStore no longer exposes the internals store.index needs (core.pool, crudOps.executePut)");
    }
  }

  /** How vectors are compared here, known after setup(). */
  get vectorMode(): VectorMode {
    return this.mode;
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (this.vectorTableReady) return;
    this.mode = await setupVectorTable(this.internals.core.pool);
    this.vectorTableReady = true;
  }

  override async put(namespace: string[], key: string, value: Record<string, any>, index?: false | string[], options?: { ttl?: number }): Promise<void> {
    if (value === null) return super.put(namespace, key, value, index, options);
    await this.putIndexed({ namespace, key, value, index, options });
  }

  override async search(namespacePrefix: string[], options: Parameters<PostgresStore["search"]>[1] = {}): Promise<SearchItem[]> {
    if (!options.query) return super.search(namespacePrefix, options);
    const items = await this.searchByQuery(options.query, { namespace_prefix: namespacePrefix, filter: options.filter, limit: options.limit ?? 10, offset: options.offset ?? 0 });
    if (options.refreshTtl ?? this.refreshOnRead) await refreshItems(this.internals.core.pool, items);
    return items;
  }

  protected override async one(op: Operation): Promise<unknown> {
    if ("value" in op && op.value !== null) return this.putIndexed(op);
    // a search with a query: search() above, the semantic one
    return super.one(op);
  }

  /** Semantic search: the HTTP API's and graphs' `search(..., { query })`. */
  async searchByQuery(query: string, q: VectorQuery): Promise<SearchItem[]> {
    if (!this.vectorTableReady) await this.setup();
    const vector = checkVector(await embedWith(() => this.index.embedder.embedQuery(query)), this.index.dims);
    return (await searchByVector(this.internals.core.pool, this.mode, this.index.dims, normalize(vector), q)) as SearchItem[];
  }

  private async putIndexed(op: PutOperation & { options?: { ttl?: number } }): Promise<void> {
    checkNamespace(op.namespace, ["namespace"]);
    if (!this.vectorTableReady) await this.setup();
    const fields = op.index === false ? [] : (op.index ?? this.index.fields);
    for (const f of fields) parseFieldPath(f); // a malformed path fails before anything is written
    const texts = fields.flatMap((f) => textsAtPath(op.value, f));
    // Embed before the transaction: a slow provider must not hold a connection (PGlite has one).
    const embeddings = texts.length ? await embedWith(() => this.index.embedder.embedDocuments(texts.map((t) => t.text))) : [];
    if (!Array.isArray(embeddings) || embeddings.length !== texts.length) {
      throw new EmbeddingError(`the embedder returned ${Array.isArray(embeddings) ? embeddings.length : "no list of"} vectors for ${texts.length} texts`);
    }
    const vectors = texts.map((t, i) => ({ path: t.path, embedding: normalize(checkVector(embeddings[i], this.index.dims)) }));
    const client = await this.internals.core.pool.connect();
    try {
      await inTransaction(client, async () => {
        await this.internals.crudOps.executePut(client, { ...op, index: false });
        await replaceVectors(client, op.namespace.join(":"), op.key, vectors);
      });
    } finally {
      client.release();
    }
  }

  private get internals(): LibraryInternals {
    return this as unknown as LibraryInternals;
  }
}

async function embedWith<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw new EmbeddingError(`embedding failed: ${(err as Error)?.message ?? String(err)}`);
  }
}

function checkVector(v: unknown, dims: number): number[] {
  if (!Array.isArray(v)) throw new EmbeddingError("the embedder returned something that is not a vector (a list of numbers)");
  if (v.length !== dims) throw new EmbeddingError(`the embedder returned a vector of ${v.length} dimensions, but store.index.dims is ${dims}`);
  if (!v.every((x) => typeof x === "number" && Number.isFinite(x))) throw new EmbeddingError("the embedder returned a vector with a value that is not a finite number");
  return v as number[];
}
