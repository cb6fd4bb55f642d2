/**
 * Serialisation of graph values for the wire: LangChain messages become plain dicts with a `type`
 * (`human`, `ai`, `tool`, `system`…) instead of the `lc` constructor format, which is what the
 * LangGraph SDK and UIs read. Errors become `{error, message}`.
 */
function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (raw !== null && typeof raw === "object" && typeof (raw as { toDict?: unknown }).toDict === "function") {
    const { type, data } = (raw as { toDict(): { type: string; data: Record<string, unknown> } }).toDict();
    return { ...data, type };
  }
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** JSON text of a value as the API shows it. */
export function toWireJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, replacer) ?? "null";
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
