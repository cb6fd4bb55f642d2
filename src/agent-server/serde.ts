/**
 * Serialisation of graph values for the wire: LangChain messages become plain dicts with a `type`
 * (`human`, `ai`, `tool`, `system`…) instead of the `lc` constructor format, which is what the
 * LangGraph SDK and UIs read. Errors become `{error, message}`.
 */
import { JsonText } from "../shared/json-text.js";

type Plain = Record<string, unknown>;
const isObject = (v: unknown): v is object => v !== null && typeof v === "object";
const hasMethod = (v: object, name: string) => typeof (v as Record<string, unknown>)[name] === "function";

/**
 * `value` as JSON.stringify should see it: LangChain messages (anything with `toDict`) as
 * `{...data, type}`, bigints as strings, `toJSON` applied, everything else as is. Copy-on-write: a
 * subtree with nothing to change is returned itself, so stringify walks it natively.
 *
 * Why not a JSON.stringify replacer: stringify calls a message's `toJSON` BEFORE the replacer sees
 * it (and `toDict` calls `toJSON` again), and a replacer is a JS call for every key. A token stream
 * serialises a message chunk per token; this is the per-token cost of `emit`.
 */
function wireValue(value: unknown, key: string): unknown {
  if (typeof value === "bigint") return bigintValue(value, key);
  if (!isObject(value)) return value;
  if (hasMethod(value, "toDict")) {
    const { type, data } = (value as { toDict(): { type: string; data: Plain } }).toDict();
    return wireChildren({ ...data, type }, false);
  }
  if (hasMethod(value, "toJSON")) {
    const json = (value as { toJSON(key: string): unknown }).toJSON(key);
    if (typeof json === "bigint") return json.toString();
    // stringify calls toJSON once per value: a result with its own toJSON is copied so it is not called again
    return isObject(json) ? wireChildren(json, hasMethod(json, "toJSON")) : json;
  }
  return wireChildren(value, false);
}

function bigintValue(value: bigint, key: string): unknown {
  const json = hasMethod(Object(value), "toJSON") ? (value as unknown as { toJSON(key: string): unknown }).toJSON(key) : value;
  return typeof json === "bigint" ? json.toString() : json;
}

/** `obj` with each child as wireValue gives it; `obj` itself when no child changed (and no copy is forced). */
function wireChildren(obj: object, forceCopy: boolean): unknown {
  if (Array.isArray(obj)) {
    let out: unknown[] | undefined = forceCopy ? obj.slice() : undefined;
    for (let i = 0; i < obj.length; i++) {
      const child: unknown = obj[i];
      const wired = wireValue(child, String(i));
      if (wired !== child) (out ??= obj.slice())[i] = wired;
    }
    return out ?? obj;
  }
  const src = obj as Plain;
  let out: Plain | undefined;
  if (forceCopy) {
    out = { ...src };
    delete out.toJSON; // a function: stringify leaves it out anyway
  }
  for (const k of Object.keys(src)) {
    const child = src[k];
    const wired = wireValue(child, k);
    if (wired !== child) (out ??= { ...src })[k] = wired;
  }
  return out ?? obj;
}

/** JSON text of a value as the API shows it. */
export function toWireJson(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  return JSON.stringify(value === undefined ? null : wireValue(value, "")) ?? "null";
}

/** A plain-JSON copy of a value as the API shows it. */
export function toPlain<T = unknown>(value: unknown): T {
  return JSON.parse(toWireJson(value)) as T;
}

export function serializeError(error: unknown): { error: string; message: string } {
  if (error instanceof Error) return { error: error.name || "Error", message: error.message };
  if (typeof error === "string") return { error: "Error", message: error };
  return { error: "Error", message: toWireJson(error) };
}
