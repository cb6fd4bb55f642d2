/**
 * LangSmith's filter language compiled to SQL with bound parameters, for runs (`filter`,
 * `trace_filter`, `tree_filter` of `POST /runs/query`) and for examples (`GET /examples?filter=`):
 * one parser (filter-parse.ts), one compiler, each table described by a `FilterSubject`.
 * The common part of the language: `and`, `or`, `not`; comparators `eq`, `neq`, `gt`, `gte`, `lt`,
 * `lte`, `in`, `search`; `has(tags, "t")`, `has(metadata, '{"k": "v"}')` (the metadata contains
 * that JSON object), `exists(metadata, "k")`, `eq(metadata.k, "v")`; run fields, `latency`
 * (seconds), `metadata_key`/`metadata_value` and `feedback_key`/`feedback_score` (a key and a
 * value/score inside one `and` refer to the same pair, as in LangSmith). Anything else is a 400
 * naming what and where.
 */
import { containsPattern } from "../../shared/db/like.js";
import { fail, parseFilter, type FilterArg, type FilterNode, type FilterValue } from "./filter-parse.js";
import { isTopSql } from "./roots.js";

/** Adds a bound parameter and returns its placeholder (`$n`). */
export type Bind = (v: unknown) => string;

const COMPARE: Record<string, string> = { eq: "=", neq: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" };

export type Column = { sql: string; cast: string };

/** What a filter is tested on: a table under an alias, and how the language's names map onto it. */
export interface FilterSubject {
  alias: string;
  /** A plain field as SQL (with the type a literal is cast to). */
  column(field: string): Column | undefined;
  /** JSON objects `has` and `exists` apply to, by name (`metadata` at least; its SQL is jsonb). */
  json: Record<string, string>;
  /** A text[] column `has(tags, …)` applies to. */
  tags?: string;
  /** Feedback rows are tracing_feedback rows of the subject's run. */
  feedback?: boolean;
  /** Text the `search` function looks in. */
  search: string[];
}

/** Runs (tracing_runs) under alias `a`. */
export function runSubject(a: string): FilterSubject {
  return {
    alias: a,
    column: (field) => runColumn(a, field),
    json: { metadata: `${a}.extra->'metadata'`, inputs: `${a}.inputs`, outputs: `${a}.outputs` },
    tags: `${a}.tags`,
    feedback: true,
    search: [`${a}.name`, `${a}.error`, `${a}.inputs::text`, `${a}.outputs::text`],
  };
}

/** Examples (tracing_examples rows) under alias `a`. */
export function exampleSubject(a: string): FilterSubject {
  return {
    alias: a,
    column: (field) => {
      switch (field) {
        case "id":
        case "source_run_id":
          return { sql: `${a}.${field}`, cast: "uuid" };
        case "created_at":
          return { sql: `${a}.created_at`, cast: "timestamptz" };
        case "modified_at":
          return { sql: `${a}.valid_from`, cast: "timestamptz" };
        default:
          return undefined;
      }
    },
    json: { metadata: `${a}.metadata`, inputs: `${a}.inputs`, outputs: `${a}.outputs` },
    search: [`${a}.inputs::text`, `${a}.outputs::text`],
  };
}

/** Run fields the language names, as SQL over alias `a` (with the type a literal is cast to). */
function runColumn(a: string, field: string): { sql: string; cast: string } | undefined {
  switch (field) {
    case "id":
    case "trace_id":
    case "parent_run_id":
    case "reference_example_id":
      return { sql: `${a}.${field}`, cast: "uuid" };
    case "session_id":
    case "project_id":
      return { sql: `${a}.project_id`, cast: "uuid" };
    case "name":
    case "run_type":
    case "status":
    case "error":
    case "thread_id":
    case "model":
    case "provider":
    case "dotted_order":
      return { sql: `${a}.${field}`, cast: "text" };
    case "start_time":
    case "end_time":
    case "first_token_time":
      return { sql: `${a}.${field}`, cast: "timestamptz" };
    case "latency":
      // start times may carry the dotted order's microseconds while end times come in milliseconds:
      // a sub-millisecond run can look like it ended before it started; its latency is 0, not negative
      return { sql: `greatest(extract(epoch from (${a}.end_time - ${a}.start_time)), 0)`, cast: "float8" };
    case "total_tokens":
      return { sql: `${a}.total_tokens`, cast: "float8" };
    case "prompt_tokens":
      return { sql: `${a}.input_tokens`, cast: "float8" };
    case "completion_tokens":
      return { sql: `${a}.output_tokens`, cast: "float8" };
    case "total_cost":
      return { sql: `${a}.total_cost`, cast: "numeric" };
    case "prompt_cost":
      return { sql: `${a}.input_cost`, cast: "numeric" };
    case "completion_cost":
      return { sql: `${a}.output_cost`, cast: "numeric" };
    case "is_root":
      return { sql: `coalesce(${isTopSql(a)}, false)`, cast: "boolean" };
    default:
      return undefined;
  }
}

/**
 * SQL (a boolean expression over the runs table under alias `a`) for a parsed filter.
 * `source` is only for error messages.
 */
export function compileFilter(node: FilterNode, subject: FilterSubject, bind: Bind, source: string): string {
  const a = subject.alias;
  const md = `coalesce(${subject.json.metadata}, '{}'::jsonb)`;
  const isNode = (x: FilterNode | FilterArg): x is FilterNode => "fn" in x;
  const fieldOf = (n: FilterNode, x: FilterNode | FilterArg | undefined): string => {
    if (!x || isNode(x) || !("field" in x)) fail(source, n.at, `${n.fn}() takes a field name first`);
    return x.field;
  };
  const valueOf = (n: FilterNode, x: FilterNode | FilterArg | undefined): FilterValue => {
    if (!x || isNode(x) || !("value" in x)) fail(source, n.at, `${n.fn}() takes a value second`);
    return x.value;
  };
  const literal = (n: FilterNode, v: FilterValue, cast: string) => {
    if (Array.isArray(v)) fail(source, n.at, `${n.fn}() compares with one value, not a list`);
    if (cast === "timestamptz" && (typeof v !== "string" || Number.isNaN(Date.parse(v)))) fail(source, n.at, `${JSON.stringify(v)} is not an ISO 8601 time`);
    if ((cast === "float8" || cast === "numeric") && typeof v !== "number") fail(source, n.at, `${JSON.stringify(v)} is not a number`);
    if (cast === "uuid" && (typeof v !== "string" || !/^[0-9a-f-]{36}$/i.test(v))) fail(source, n.at, `${JSON.stringify(v)} is not a UUID`);
    return `${bind(cast === "boolean" ? Boolean(v) : v)}::${cast}`;
  };
  const feedback = (n: FilterNode, conds: string[]) => {
    if (!subject.feedback) fail(source, n.at, "feedback fields apply to runs only");
    return feedbackSql(conds);
  };
  const feedbackSql = (conds: string[]) => `EXISTS (SELECT 1 FROM tracing_feedback f WHERE f.tenant_id = ${a}.tenant_id AND f.run_id = ${a}.id${conds.map((c) => ` AND ${c}`).join("")})`;
  const metadata = (key: FilterValue | undefined, op: string | undefined, value: FilterValue | undefined) => {
    if (key !== undefined && op) return `${md}->>${bind(String(key))} ${op} ${bind(String(value))}`;
    if (key !== undefined) return `${md} ? ${bind(String(key))}`;
    return `EXISTS (SELECT 1 FROM jsonb_each_text(${md}) m WHERE m.value ${op ?? "="} ${bind(String(value))})`;
  };

  const compile = (n: FilterNode): string => {
    const fn = n.fn.toLowerCase();
    if (fn === "and" || fn === "or") {
      if (!n.args.length) fail(source, n.at, `${fn}() needs at least one condition`);
      const parts: string[] = [];
      const children = n.args.map((x) => (isNode(x) ? x : fail(source, n.at, `${fn}() takes conditions, not values`)));
      if (fn === "and") {
        // key + value (or score) in one and() refer to the same metadata pair / feedback
        const pick = (field: string) => children.filter((c) => c.args[0] && !isNode(c.args[0]) && "field" in c.args[0] && c.args[0].field === field);
        const fbKey = pick("feedback_key").filter((c) => c.fn === "eq");
        const fbScore = pick("feedback_score");
        const mdKey = pick("metadata_key").filter((c) => c.fn === "eq");
        const mdValue = pick("metadata_value").filter((c) => c.fn === "eq" || c.fn === "neq");
        const used = new Set<FilterNode>();
        if (fbKey.length === 1 && fbScore.length) {
          const conds = [`f.key = ${bind(String(valueOf(fbKey[0]!, fbKey[0]!.args[1])))}`];
          for (const s of fbScore) {
            const op = COMPARE[s.fn];
            if (!op) fail(source, s.at, `${s.fn}() does not apply to feedback_score`);
            conds.push(`f.score ${op} ${literal(s, valueOf(s, s.args[1]), "float8")}`);
            used.add(s);
          }
          used.add(fbKey[0]!);
          parts.push(feedback(fbKey[0]!, conds));
        }
        if (mdKey.length === 1 && mdValue.length === 1) {
          const v = mdValue[0]!;
          parts.push(metadata(valueOf(mdKey[0]!, mdKey[0]!.args[1]), COMPARE[v.fn], valueOf(v, v.args[1])));
          used.add(mdKey[0]!).add(v);
        }
        for (const c of children) if (!used.has(c)) parts.push(compile(c));
      } else for (const c of children) parts.push(compile(c));
      return `(${parts.join(fn === "and" ? " AND " : " OR ")})`;
    }
    if (fn === "not") {
      const inner = n.args[0];
      if (n.args.length !== 1 || !inner || !isNode(inner)) fail(source, n.at, "not() takes one condition");
      return `(NOT coalesce(${compile(inner)}, false))`;
    }
    if (fn === "search") {
      const term = valueOf(n, n.args.length === 1 ? n.args[0] : n.args[1]);
      if (typeof term !== "string" || !term) fail(source, n.at, "search() takes a non-empty string");
      const p = bind(containsPattern(term));
      return `(${subject.search.map((c) => `${c} ILIKE ${p}`).join(" OR ")})`;
    }
    const field = fieldOf(n, n.args[0]);
    if (n.args.length !== 2) fail(source, n.at, `${fn}() takes a field and a value`);
    const v = valueOf(n, n.args[1]);
    const json = subject.json[field];
    if (json && (fn === "has" || fn === "exists")) {
      if (fn === "exists") {
        if (typeof v !== "string") fail(source, n.at, "exists() takes a key (a string) second");
        return `coalesce(${json}, '{}'::jsonb) ? ${bind(v)}`;
      }
      let obj: unknown = v;
      if (typeof v === "string") {
        try {
          obj = JSON.parse(v);
        } catch {
          fail(source, n.at, `has(${field}, …) takes a JSON object, such as '{"key": "value"}'`);
        }
      }
      if (!obj || typeof obj !== "object" || Array.isArray(obj)) fail(source, n.at, `has(${field}, …) takes a JSON object, such as '{"key": "value"}'`);
      return `coalesce(${json}, '{}'::jsonb) @> ${bind(JSON.stringify(obj))}::jsonb`;
    }
    if (field === "tags") {
      if (!subject.tags) fail(source, n.at, "tags apply to runs only");
      if (fn !== "has" && fn !== "eq" && fn !== "neq") fail(source, n.at, `${fn}() does not apply to tags (use has)`);
      const sql = `${bind(String(v))} = ANY(coalesce(${subject.tags}, '{}'))`;
      return fn === "neq" ? `NOT (${sql})` : sql;
    }
    if (field === "feedback_key") {
      if (fn !== "eq" && fn !== "neq") fail(source, n.at, `${fn}() does not apply to feedback_key`);
      const sql = feedback(n, [`f.key = ${bind(String(v))}`]);
      return fn === "neq" ? `NOT ${sql}` : sql;
    }
    if (field === "feedback_score") {
      const op = COMPARE[fn];
      if (!op) fail(source, n.at, `${fn}() does not apply to feedback_score`);
      return feedback(n, [`f.score ${op} ${literal(n, v, "float8")}`]);
    }
    if (field === "metadata_key") {
      if (fn !== "eq") fail(source, n.at, `${fn}() does not apply to metadata_key`);
      return metadata(v, undefined, undefined);
    }
    if (field === "metadata_value") {
      const op = COMPARE[fn];
      if (fn !== "eq" && fn !== "neq") fail(source, n.at, `${fn}() does not apply to metadata_value`);
      return metadata(undefined, op, v);
    }
    if (field.startsWith("metadata.")) {
      const op = COMPARE[fn];
      if (fn !== "eq" && fn !== "neq") fail(source, n.at, `${fn}() does not apply to metadata`);
      return metadata(field.slice("metadata.".length), op, v);
    }
    const col = subject.column(field);
    if (!col) fail(source, n.args[0] && "at" in n.args[0] ? n.args[0].at : n.at, `unknown field ${JSON.stringify(field)}`);
    if (fn === "in") {
      if (!Array.isArray(v) || !v.length) fail(source, n.at, "in() takes a non-empty list");
      return `${col.sql} IN (${v.map((x) => literal(n, x, col.cast)).join(", ")})`;
    }
    if (fn === "has" || fn === "exists") fail(source, n.at, `${fn}() applies to ${subject.tags ? "tags, " : ""}${Object.keys(subject.json).join(", ")}; not ${field}`);
    const op = COMPARE[fn];
    if (!op) fail(source, n.at, `unknown function ${JSON.stringify(n.fn)}`);
    if (v === null) {
      if (fn === "eq") return `${col.sql} IS NULL`;
      if (fn === "neq") return `${col.sql} IS NOT NULL`;
      fail(source, n.at, `${fn}() cannot compare with null`);
    }
    if (fn === "neq") return `${col.sql} IS DISTINCT FROM ${literal(n, v, col.cast)}`;
    return `${col.sql} ${op} ${literal(n, v, col.cast)}`;
  };
  return compile(node);
}

/** Parse and compile in one step; `kind` selects which runs the expression is tested on. */
export function filterSql(source: string, kind: "run" | "trace" | "tree", bind: Bind): string {
  const node = parseFilter(source);
  if (kind === "run") return compileFilter(node, runSubject("tracing_runs"), bind, source);
  const inner = compileFilter(node, runSubject("t"), bind, source);
  return `EXISTS (SELECT 1 FROM tracing_runs t WHERE t.tenant_id = tracing_runs.tenant_id AND t.trace_id = tracing_runs.trace_id${kind === "trace" ? ` AND ${isTopSql("t")}` : ""} AND ${inner})`;
}

/** SQL for a filter on examples (tracing_examples under `alias`). */
export function exampleFilterSql(source: string, alias: string, bind: Bind): string {
  return compileFilter(parseFilter(source), exampleSubject(alias), bind, source);
}
