/**
 * Rules of datasets and examples, pure: where an example's splits live, how an update merges into
 * the current state, and what an `as_of` names. LangSmith keeps splits in `metadata.dataset_split`
 * (an array; "base" when none was given), so filters and the SDK's evaluate() read them there.
 */

export const DEFAULT_SPLIT = "base";
export const SPLIT_KEY = "dataset_split";

export type Json = Record<string, unknown>;

/** The stored state of an example at one version. */
export interface ExampleState {
  inputs: Json;
  outputs: Json | null;
  metadata: Json;
  source_run_id: string | null;
}

/** A new example, as any create path (multipart, JSON, bulk) carries it. */
export interface ExampleCreate {
  id: string;
  inputs: Json;
  outputs?: Json | null;
  metadata?: Json | null;
  split?: string | string[] | null;
  source_run_id?: string | null;
  created_at?: string | null;
}

/** A change to an existing example: absent fields stay as they are. */
export interface ExampleChange {
  id: string;
  inputs?: Json | null;
  outputs?: Json | null;
  metadata?: Json | null;
  split?: string | string[] | null;
}

export function splitList(split: string | string[] | null | undefined): string[] | undefined {
  if (split === undefined || split === null) return undefined;
  const list = (Array.isArray(split) ? split : [split]).filter((s) => s !== "");
  return list.length ? [...new Set(list)] : undefined;
}

/** The state of a new example: its splits (given, in its metadata, or "base") in its metadata. */
export function initialState(e: ExampleCreate): ExampleState {
  const metadata = { ...(e.metadata ?? {}) };
  const splits = splitList(e.split) ?? splitList(metadata[SPLIT_KEY] as string | string[] | undefined) ?? [DEFAULT_SPLIT];
  metadata[SPLIT_KEY] = splits;
  return { inputs: e.inputs, outputs: e.outputs ?? null, metadata, source_run_id: e.source_run_id ?? null };
}

/**
 * The state after a change. Given metadata replaces the old, keeping the old splits unless the
 * change names splits (as `split` or inside the new metadata).
 */
export function changedState(current: ExampleState, c: ExampleChange): ExampleState {
  const metadata = c.metadata ? { ...c.metadata } : { ...current.metadata };
  const splits = splitList(c.split) ?? (c.metadata ? splitList(c.metadata[SPLIT_KEY] as string | string[] | undefined) : undefined) ?? splitList(current.metadata[SPLIT_KEY] as string[]) ?? [DEFAULT_SPLIT];
  metadata[SPLIT_KEY] = splits;
  return {
    inputs: c.inputs ?? current.inputs,
    outputs: c.outputs === undefined || c.outputs === null ? current.outputs : c.outputs,
    metadata,
    source_run_id: current.source_run_id,
  };
}

/**
 * One bulk metadata change (`PATCH …/examples/metadata`): `set` replaces the value at a key;
 * `array_add`/`array_remove` add values to, or remove them from, the list at a key.
 */
export type MetadataOperation = { key: string; operation: "set"; value: unknown } | { key: string; operation: "array_add" | "array_remove"; values: unknown[] };

/**
 * Apply one metadata operation. As LangSmith documents it: for array operations a missing or
 * non-list value starts as an empty list, except `dataset_split`, which starts as the base split.
 * An example is always in a split: emptying (or setting to nothing) its splits puts it in "base".
 */
export function applyMetadataOperation(metadata: Json, op: MetadataOperation): Json {
  if (op.operation === "set") {
    if (op.key !== SPLIT_KEY) return { ...metadata, [op.key]: op.value };
    return { ...metadata, [SPLIT_KEY]: splitList(op.value as string | string[] | null) ?? [DEFAULT_SPLIT] };
  }
  const raw = metadata[op.key];
  const list = Array.isArray(raw) ? [...raw] : op.key === SPLIT_KEY ? [DEFAULT_SPLIT] : [];
  const has = (v: unknown) => list.some((x) => JSON.stringify(x) === JSON.stringify(v));
  if (op.operation === "array_add") for (const v of op.values) if (!has(v)) list.push(v);
  const next = op.operation === "array_remove" ? list.filter((x) => !op.values.some((v) => JSON.stringify(v) === JSON.stringify(x))) : list;
  const out = { ...metadata, [op.key]: next };
  if (op.key === SPLIT_KEY && next.length === 0) out[SPLIT_KEY] = [DEFAULT_SPLIT];
  return out;
}

/** Whether a SET of `dataset_split` names splits (a string or a list of strings); other values are refused. */
export function isSplitValue(v: unknown): boolean {
  return v === null || typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string"));
}

/** What an `as_of` names: the latest version, a moment, or a tag. */
export type AsOf = { kind: "latest" } | { kind: "time"; at: Date } | { kind: "tag"; tag: string };

const ISO_LIKE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}(:?\d{2})?)?)?$/i;

export function parseAsOf(raw: string | undefined | null): AsOf {
  if (raw === undefined || raw === null || raw === "" || raw === "latest") return { kind: "latest" };
  if (ISO_LIKE.test(raw)) {
    const at = new Date(raw);
    if (!Number.isNaN(at.getTime())) return { kind: "time", at };
  }
  return { kind: "tag", tag: raw };
}
