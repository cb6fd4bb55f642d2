/**
 * Importing a module of the user's project (a graph, `http.app`, `auth.path`): TypeScript through
 * the one tsx loader, and a failure told apart — the file is missing, one of its own imports
 * cannot be resolved (with what to do, see load-errors.ts), or it threw. Each caller words the error.
 */
import { access } from "node:fs/promises";
import v8 from "node:v8";
import { pathToFileURL } from "node:url";
import { explainUnresolved } from "./load-errors.js";

export type ImportFailure = { kind: "not-found" } | { kind: "unresolved"; detail: string } | { kind: "failed"; error: Error };

let tsxRegistered: Promise<void> | undefined;
export async function ensureTypeScriptLoader(): Promise<void> {
  // Register tsx once, globally, so .ts graphs and everything they import share our module
  // instances (one @langchain/core, one @langchain/langgraph).
  tsxRegistered ??= import("tsx/esm/api").then((m) => {
    // Node runs module hooks on a thread of their own (an isolate with its own heap), created by
    // this register() (which waits for it to start). Its young generation grows to V8's default
    // 16 MB semi-spaces while the graphs load and stays resident afterwards: 1 MB semi-spaces for
    // that isolate alone took ~9 MB off the idle RSS of `berth serve` 1 s after start (issue 16).
    // The flag is process-wide and read when an isolate is created, so it is set back right after.
    v8.setFlagsFromString("--max-semi-space-size=1");
    try {
      m.register();
    } finally {
      v8.setFlagsFromString("--max-semi-space-size=0");
    }
  });
  await tsxRegistered;
}

export async function importUserModule(file: string, toError: (failure: ImportFailure) => Error): Promise<Record<string, unknown>> {
  if (/\.(c|m)?tsx?$/.test(file)) await ensureTypeScriptLoader();
  if (!(await access(file).then(() => true, () => false))) throw toError({ kind: "not-found" });
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    // The file exists, so a module that cannot be found is one of its imports.
    const detail = await explainUnresolved(err);
    throw toError(detail ? { kind: "unresolved", detail } : { kind: "failed", error: err instanceof Error ? err : new Error(String(err)) });
  }
}
