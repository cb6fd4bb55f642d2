/**
 * Label and field selectors, parsed once per request into a predicate.
 *
 * Label selectors: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k`
 * (does not exist), comma-separated (AND). Field selectors: `metadata.name`, `metadata.namespace`
 * and the per-kind fields the ResourceType lists, with `=`, `==`, `!=`.
 *
 * Approximations: label keys/values are not validated beyond the grammar; the `gt`/`lt`
 * operators (`k>1`) are not supported; a field that is missing on the object compares as "".
 */
import { badRequest } from "./errors.js";

export type Predicate = (obj: any) => boolean;

const always: Predicate = () => true;

interface Requirement {
  key: string;
  op: "=" | "!=" | "in" | "notin" | "exists" | "!";
  values: string[];
}

function parseLabelRequirements(input: string): Requirement[] {
  const out: Requirement[] = [];
  let i = 0;
  const s = input;
  const skipWs = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const readToken = () => {
    skipWs();
    const start = i;
    while (i < s.length && !/[\s,()=!]/.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  while (true) {
    skipWs();
    if (i >= s.length) break;
    let negate = false;
    if (s[i] === "!") {
      negate = true;
      i++;
    }
    const key = readToken();
    if (!key) throw badRequest(`unable to parse requirement: invalid label selector "${input}"`);
    skipWs();
    if (negate) {
      out.push({ key, op: "!", values: [] });
    } else if (i >= s.length || s[i] === ",") {
      out.push({ key, op: "exists", values: [] });
    } else if (s.startsWith("==", i) || s[i] === "=") {
      i += s.startsWith("==", i) ? 2 : 1;
      out.push({ key, op: "=", values: [readToken()] });
    } else if (s.startsWith("!=", i)) {
      i += 2;
      out.push({ key, op: "!=", values: [readToken()] });
    } else {
      const word = readToken();
      if (word !== "in" && word !== "notin") throw badRequest(`unable to parse requirement: invalid label selector "${input}"`);
      skipWs();
      if (s[i] !== "(") throw badRequest(`unable to parse requirement: expected '(' in label selector "${input}"`);
      const close = s.indexOf(")", i);
      if (close < 0) throw badRequest(`unable to parse requirement: expected ')' in label selector "${input}"`);
      const values = s
        .slice(i + 1, close)
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      i = close + 1;
      out.push({ key, op: word, values });
    }
    skipWs();
    if (i < s.length) {
      if (s[i] !== ",") throw badRequest(`unable to parse requirement: invalid label selector "${input}"`);
      i++;
    }
  }
  return out;
}

export function parseLabelSelector(input: string | null | undefined): Predicate {
  if (!input || !input.trim()) return always;
  const reqs = parseLabelRequirements(input);
  return (obj) => {
    const labels: Record<string, string> = obj?.metadata?.labels ?? {};
    for (const r of reqs) {
      const has = Object.prototype.hasOwnProperty.call(labels, r.key);
      const v = labels[r.key];
      switch (r.op) {
        case "=":
          if (!has || v !== r.values[0]) return false;
          break;
        case "!=":
          if (has && v === r.values[0]) return false;
          break;
        case "in":
          if (!has || !r.values.includes(v!)) return false;
          break;
        case "notin":
          if (has && r.values.includes(v!)) return false;
          break;
        case "exists":
          if (!has) return false;
          break;
        case "!":
          if (has) return false;
          break;
      }
    }
    return true;
  };
}

/** Match a label selector object ({matchLabels, matchExpressions}) as used in specs. */
export function matchesLabelSelectorObject(selector: any, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector?.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values: string[] = e.values ?? [];
    if (e.operator === "In" && !(has && values.includes(l[e.key]!))) return false;
    if (e.operator === "NotIn" && has && values.includes(l[e.key]!)) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}

function fieldValue(obj: any, path: string): string {
  let cur = obj;
  for (const part of path.split(".")) {
    if (cur == null || typeof cur !== "object") return "";
    cur = cur[part];
  }
  if (cur == null) return "";
  return String(cur);
}

export function parseFieldSelector(input: string | null | undefined, allowed: string[] = []): Predicate {
  if (!input || !input.trim()) return always;
  const reqs = input.split(",").map((part) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${input}'; can't understand '${part}'`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    if (field !== "metadata.name" && field !== "metadata.namespace" && !allowed.includes(field)) {
      throw badRequest(`field label not supported: ${field}`);
    }
    return { field, negate: op === "!=", value };
  });
  return (obj) => {
    for (const r of reqs) {
      const matches = fieldValue(obj, r.field) === r.value;
      if (matches === r.negate) return false;
    }
    return true;
  };
}

export function and(a: Predicate, b: Predicate): Predicate {
  if (a === always) return b;
  if (b === always) return a;
  return (obj) => a(obj) && b(obj);
}

export const isAlways = (p: Predicate) => p === always;
