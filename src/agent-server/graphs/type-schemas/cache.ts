/**
 * The disk cache of schemas derived from TypeScript types. An entry is found by the graph file's
 * contents (with its export, the TypeScript version and our extractor's version) and is valid
 * while every project file the types were read from still has the contents recorded. Reading it
 * needs no compiler, so a start whose graphs are all cached never loads TypeScript.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { TypeSchemas } from "./extract.js";

export interface GraphRef {
  graphId: string;
  file: string;
  exportName: string;
}

/** Bumped when the schemas we derive change shape, so old cache entries are not served. */
const EXTRACTOR_VERSION = 1;
const TS_VERSION = (createRequire(import.meta.url)("typescript/package.json") as { version: string }).version;

interface CacheEntry {
  /** sha256 of every project file the types were read from, by path. */
  files: Record<string, string>;
  schemas: TypeSchemas;
}

export const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

export async function fileHash(file: string): Promise<string | undefined> {
  return readFile(file).then(sha256, () => undefined);
}

/** Where a graph's entry lives, given the graph file's contents. */
export function entryPath(cacheDir: string, graph: GraphRef, contents: Buffer): string {
  const key = sha256(JSON.stringify([EXTRACTOR_VERSION, TS_VERSION, graph.file, graph.exportName, sha256(contents)]));
  return path.join(cacheDir, `${key}.json`);
}

/** The cached schemas of a graph, if its entry exists and its files are unchanged. */
export async function readCached(cacheDir: string, graph: GraphRef): Promise<TypeSchemas | undefined> {
  try {
    const entry = JSON.parse(await readFile(entryPath(cacheDir, graph, await readFile(graph.file)), "utf8")) as CacheEntry;
    if (!entry?.schemas || typeof entry.files !== "object") return undefined;
    for (const [f, hash] of Object.entries(entry.files)) if ((await fileHash(f)) !== hash) return undefined;
    return entry.schemas;
  } catch {
    return undefined; // no entry, or not one we wrote
  }
}

/**
 * Record a graph's schemas, read from `contents` of its file and the project files listed.
 * Written aside and renamed, so a reader never sees half an entry; a read-only disk only costs
 * the next start an extraction.
 */
export async function writeCached(cacheDir: string, graph: GraphRef, contents: Buffer, projectFiles: string[], schemas: TypeSchemas): Promise<void> {
  const files: Record<string, string> = {};
  for (const f of new Set([graph.file, ...projectFiles])) {
    const hash = await fileHash(f);
    if (hash) files[f] = hash;
  }
  // If the graph file changed while the compiler read it, the entry would lie.
  if (files[graph.file] !== sha256(contents)) return;
  try {
    const file = entryPath(cacheDir, graph, contents);
    await mkdir(cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, JSON.stringify({ files, schemas } satisfies CacheEntry));
    await rename(tmp, file);
  } catch {
    /* not cached */
  }
}
