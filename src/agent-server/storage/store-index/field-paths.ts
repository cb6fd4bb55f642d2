/**
 * Which text of a store item gets embedded: the `fields` of `store.index` (or a put's `index`),
 * paths in the LangGraph store's syntax — `$` (the whole value, as JSON), `a.b` (nested keys),
 * `a[0]` / `a[-1]` (an element, from the end with a minus), `a[*]` (every element, each its own
 * vector), combinable: `chapters[*].title`.
 */

type Step = { kind: "key"; name: string } | { kind: "index"; at: number } | { kind: "each" };

export class FieldPathError extends Error {
  constructor(path: string, why: string) {
    super(`invalid field path ${JSON.stringify(path)}: ${why}`);
    this.name = "FieldPathError";
  }
}

/** Parse a path; throws FieldPathError on a malformed one (checked once at start and per put). */
export function parseFieldPath(path: string): Step[] {
  if (path === "$") return [];
  const steps: Step[] = [];
  // A step is a key (anything but '.', '[' and ']'), optionally followed by bracket selectors.
  for (const part of path.split(".")) {
    const m = /^([^[\]]*)((?:\[[^\]]*\])*)$/.exec(part);
    if (!m) throw new FieldPathError(path, `"${part}" has unbalanced brackets`);
    const [, name, brackets] = m;
    if (!name && !brackets) throw new FieldPathError(path, "has an empty segment");
    if (name) steps.push({ kind: "key", name });
    for (const sel of brackets!.match(/\[[^\]]*\]/g) ?? []) {
      const inner = sel.slice(1, -1);
      if (inner === "*") steps.push({ kind: "each" });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: "index", at: Number(inner) });
      else throw new FieldPathError(path, `"${sel}" must be [*], [n] or [-n]`);
    }
  }
  return steps;
}

/** The texts at `path` in `value` with their own path (`a[*]` expands to `a[0]`, `a[1]`…); none when absent. */
export function textsAtPath(value: unknown, path: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (v: unknown, steps: Step[], at: string): void => {
    if (v === undefined || v === null) return;
    const [step, ...rest] = steps;
    if (!step) {
      const text = typeof v === "string" ? v : JSON.stringify(v);
      if (text.trim()) out.push({ path: at, text });
      return;
    }
    if (step.kind === "key") {
      if (typeof v === "object" && !Array.isArray(v)) walk((v as Record<string, unknown>)[step.name], rest, at ? `${at}.${step.name}` : step.name);
    } else if (Array.isArray(v)) {
      if (step.kind === "each") v.forEach((el, i) => walk(el, rest, `${at}[${i}]`));
      else {
        const i = step.at < 0 ? v.length + step.at : step.at;
        if (i >= 0 && i < v.length) walk(v[i], rest, `${at}[${i}]`);
      }
    }
  };
  walk(value, parseFieldPath(path), path === "$" ? "$" : "");
  return out;
}
