/**
 * LangSmith's filter language, parsed (pure): calls such as `and(eq(run_type, "llm"), gt(latency, 2))`
 * with field names, strings, numbers, booleans, null and lists as arguments. What the calls mean is
 * compiled in filter.ts, for runs and for examples alike.
 */
import { BadRequestError } from "../../shared/errors.js";

export type FilterValue = string | number | boolean | null | FilterValue[];
export type FilterNode = { fn: string; args: (FilterNode | FilterArg)[]; at: number };
export type FilterArg = { value: FilterValue } | { field: string; at: number };

const MAX_DEPTH = 32;

class FilterSyntaxError extends BadRequestError {}

export function fail(source: string, at: number, msg: string): never {
  throw new FilterSyntaxError(`invalid filter expression ${JSON.stringify(source)}: ${msg} at position ${at}`);
}

/** Parse an expression such as `and(eq(run_type, "llm"), gt(latency, 2))`. */
export function parseFilter(source: string): FilterNode {
  let i = 0;
  let depth = 0;
  const ws = () => {
    while (i < source.length && /\s/.test(source[i]!)) i++;
  };
  const ident = () => {
    const m = /^[A-Za-z_][\w.]*/.exec(source.slice(i));
    if (!m) fail(source, i, "expected a name");
    i += m[0].length;
    return m[0];
  };
  const value = (): FilterNode | FilterArg => {
    ws();
    const at = i;
    const c = source[i];
    if (c === '"' || c === "'") {
      let out = "";
      i++;
      while (i < source.length && source[i] !== c) {
        if (source[i] === "\\" && i + 1 < source.length) i++;
        out += source[i++];
      }
      if (i >= source.length) fail(source, at, "unterminated string");
      i++;
      return { value: out };
    }
    if (c === "[") {
      i++;
      const items: FilterValue[] = [];
      ws();
      if (source[i] === "]") {
        i++;
        return { value: items };
      }
      for (;;) {
        const v = value();
        if (!("value" in v)) fail(source, at, "a list holds strings and numbers only");
        items.push(v.value);
        ws();
        if (source[i] === ",") i++;
        else if (source[i] === "]") {
          i++;
          return { value: items };
        } else fail(source, i, "expected , or ]");
      }
    }
    const num = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(source.slice(i));
    if (num) {
      i += num[0].length;
      return { value: Number(num[0]) };
    }
    const name = ident();
    ws();
    if (source[i] === "(") return call(name, at);
    if (name === "null" || name === "None") return { value: null };
    if (name === "true" || name === "True") return { value: true };
    if (name === "false" || name === "False") return { value: false };
    return { field: name, at };
  };
  const call = (fn: string, at: number): FilterNode => {
    // a deeper expression is no real query, and would exhaust the database's stack as SQL
    if (++depth > MAX_DEPTH) fail(source, at, `nested deeper than ${MAX_DEPTH} calls`);
    i++; // (
    const args: (FilterNode | FilterArg)[] = [];
    ws();
    if (source[i] === ")") {
      i++;
      depth--;
      return { fn, args, at };
    }
    for (;;) {
      args.push(value());
      ws();
      if (source[i] === ",") i++;
      else if (source[i] === ")") {
        i++;
        depth--;
        return { fn, args, at };
      } else fail(source, i, i >= source.length ? "unexpected end (missing \")\"?)" : `unexpected ${JSON.stringify(source[i])}`);
    }
  };
  ws();
  const at = i;
  const root = value();
  ws();
  if (i < source.length) fail(source, i, `unexpected ${JSON.stringify(source.slice(i, i + 10))}`);
  if (!("fn" in root)) fail(source, at, "expected a function call such as eq(name, \"x\")");
  return root;
}
