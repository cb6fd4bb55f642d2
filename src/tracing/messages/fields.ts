/**
 * Small readers for the loose JSON of traced payloads. Payloads come from any client, so every
 * field is checked before use: these turn "maybe" values into safe defaults instead of throwing.
 */
import type { MediaType, NativeBlock } from "./native.js";

/** A JSON object whose fields are still unchecked. */
export type Json = Record<string, any>;

export const isObj = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);
export const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
export const str = (x: unknown): string | undefined => (typeof x === "string" ? x : undefined);
/** Ids and names: strings as they are, numbers stringified, anything else empty. */
export const idStr = (x: unknown): string => (typeof x === "string" ? x : typeof x === "number" ? String(x) : "");

/** Own-key lookup, so names like "constructor" never hit Object.prototype. */
export const lookup = <T>(table: Record<string, T>, key: unknown): T | undefined =>
  typeof key === "string" && Object.hasOwn(table, key) ? table[key] : undefined;

/** `extras` only when there is something in it. */
export function withExtras<T extends object>(block: T, extras: Record<string, unknown> | undefined): T {
  const kept = Object.fromEntries(Object.entries(extras ?? {}).filter(([, v]) => v !== undefined && v !== null));
  return Object.keys(kept).length ? { ...block, extras: kept } : block;
}

const DATA_URI = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** A URL, or a data: URI split into base64 + mime type. */
export function mediaFromUrl(type: MediaType, url: string, extras?: Record<string, unknown>): NativeBlock {
  const m = DATA_URI.exec(url);
  return withExtras(m ? { type, base64: m[2]!, mime_type: m[1]! } : { type, url }, extras);
}

/**
 * Inline file data that may or may not be a data: URI (OpenAI sends URIs, some clients bare
 * base64). Bare data has no mime type we can trust, so none is invented.
 */
export function mediaFromData(type: MediaType, data: string, extras?: Record<string, unknown>): NativeBlock {
  return data.startsWith("data:") ? mediaFromUrl(type, data, extras) : withExtras({ type, base64: data }, extras);
}

/** Tool-call arguments: an object as is, a JSON string parsed — or kept raw with the error. */
export function toolCall(id: unknown, name: unknown, args: unknown): NativeBlock {
  const head = { ...(idStr(id) ? { id: idStr(id) } : {}), name: idStr(name) };
  if (typeof args === "string") {
    if (args.trim() === "") return { type: "tool_call", ...head, args: {} };
    try {
      const parsed = JSON.parse(args) as unknown;
      if (isObj(parsed)) return { type: "tool_call", ...head, args: parsed };
      return { type: "invalid_tool_call", ...head, args, error: "arguments are JSON but not an object" };
    } catch (err) {
      return { type: "invalid_tool_call", ...head, args, error: `arguments are not valid JSON: ${(err as Error).message}` };
    }
  }
  return { type: "tool_call", ...head, args: isObj(args) ? args : {} };
}

/** Server-side tool arguments must be an object too; a JSON string is parsed, anything else wrapped. */
export function objectArgs(args: unknown): Record<string, unknown> {
  if (isObj(args)) return args;
  if (typeof args === "string") {
    try {
      const parsed = JSON.parse(args) as unknown;
      if (isObj(parsed)) return parsed;
    } catch {
      // not JSON: kept as the raw string below
    }
    return args === "" ? {} : { arguments: args };
  }
  return args === undefined || args === null ? {} : { value: args };
}
