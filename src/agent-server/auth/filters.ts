/**
 * The metadata filters a custom auth handler returns (`return { owner: user.identity }`), as the
 * LangGraph platform reads them: `{key: value}` and `{key: {$eq: value}}` match a metadata field
 * equal to the value; `{key: {$contains: v | v[]}}` match a metadata field that is an array
 * holding v (every v). Several keys must all match.
 *
 * Two readings of one rule: `matchesAuthFilters` for a record already loaded, `authFilterSql` for
 * searches and counts (so a page, its total and a count never include what the user may not see).
 * Unlike the platform, an operator we do not know is refused instead of ignored: a filter that
 * silently matches everything would hand every user everyone's data.
 */
import { ApiError } from "../../shared/errors.js";

export type AuthFilterValue = unknown;
export type AuthFilters = Record<string, AuthFilterValue>;

type Condition = { kind: "eq"; value: unknown } | { kind: "contains"; values: unknown[] };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** One filter entry as a condition; a handler bug (unknown operator) is a 500 that names it. */
function conditionOf(key: string, raw: AuthFilterValue): Condition {
  if (!isPlainObject(raw)) return { kind: "eq", value: raw };
  const ops = Object.keys(raw);
  if (ops.length === 1 && ops[0] === "$eq") return { kind: "eq", value: raw.$eq };
  if (ops.length === 1 && ops[0] === "$contains") {
    const c = raw.$contains;
    return { kind: "contains", values: Array.isArray(c) ? c : [c] };
  }
  throw new ApiError(
    500,
    `Auth handler returned an unsupported filter for "${key}": ${JSON.stringify(raw)} (supported: a value, {"$eq": value}, {"$contains": value or list})`,
  );
}

/** Check a handler's result is a filter object (platform: anything else is a 500). */
export function checkFilters(filters: AuthFilters): void {
  for (const [key, raw] of Object.entries(filters)) conditionOf(key, raw);
}

/** Deep JSON equality (what `jsonb = jsonb` means), for filter values that are not strings. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Whether a record's metadata passes the filters (no filters: everything passes). */
export function matchesAuthFilters(metadata: Record<string, unknown> | null | undefined, filters: AuthFilters | undefined): boolean {
  if (!filters) return true;
  for (const [key, raw] of Object.entries(filters)) {
    const cond = conditionOf(key, raw);
    const actual = metadata?.[key];
    if (cond.kind === "eq") {
      if (actual === undefined || !jsonEqual(actual, cond.value)) return false;
    } else {
      if (!Array.isArray(actual)) return false;
      if (!cond.values.every((v) => actual.some((a) => jsonEqual(a, v)))) return false;
    }
  }
  return true;
}

/**
 * The filters as SQL conditions on a jsonb column. `param` adds a query parameter and returns its
 * placeholder (SqlBuilder.p). Keys and values only ever travel as parameters.
 */
export function authFilterSql(filters: AuthFilters | undefined, column: string, param: (v: unknown) => string): string[] {
  if (!filters) return [];
  return Object.entries(filters).map(([key, raw]) => {
    const cond = conditionOf(key, raw);
    const field = `(${column} -> ${param(key)}::text)`;
    if (cond.kind === "eq") return `${field} = ${param(JSON.stringify(cond.value ?? null))}::jsonb`;
    return `(jsonb_typeof(${field}) = 'array' AND ${field} @> ${param(JSON.stringify(cond.values))}::jsonb)`;
  });
}
