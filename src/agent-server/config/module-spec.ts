/** `"./src/file.ts:export"` — how langgraph.json names a module's export (graphs, `http.app`, `auth.path`). */
export interface ModuleSpec {
  /** The path as written (relative to the config's directory). */
  file: string;
  /** `default` when the spec names none. */
  exportName: string;
}

export function splitModuleSpec(spec: string): ModuleSpec {
  const sep = spec.lastIndexOf(":");
  // A colon inside a Windows drive letter ("C:\…") is not an export separator.
  const hasExport = sep > 1;
  return { file: hasExport ? spec.slice(0, sep) : spec, exportName: hasExport ? spec.slice(sep + 1) : "default" };
}
