/**
 * New runs written with `COPY … FROM STDIN` (text format) instead of `INSERT … SELECT FROM
 * jsonb_to_recordset(...)`. Measured on the ingest benchmark's rows (6,000 runs, one backend,
 * batches of 200): the backend spent 87–100 µs of CPU per row on the INSERT and 48–53 µs on COPY.
 * The INSERT parses the whole batch as one jsonb document and then takes every column back out of
 * it (a jsonb payload is parsed, then copied out again); COPY parses each column once, straight
 * into its type. On a machine where Postgres shares the cores with the server, that is CPU the
 * ingest gets back.
 *
 * The encoding (pure): one line per row, columns separated by tabs, `\N` for NULL; inside a value
 * a backslash, newline, carriage return and tab are escaped with a backslash (the only characters
 * the text format gives a meaning to). Arrays are array literals with every element quoted.
 */
import { from as copyFrom } from "pg-copy-streams";
import type pg from "pg";
import { jsonText } from "../ingest/raw-json.js";

/** The SQL types of the columns written (a subset of what `COPY` can take in text format). */
export type CopyType = "uuid" | "text" | "timestamptz" | "jsonb" | "text[]" | "bigint" | "boolean" | "numeric" | "double precision";

const SPECIAL = /[\\\n\r\t]/;
const SPECIAL_ALL = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A value's text escaped for COPY's text format. */
export function escapeCopy(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : text;
}

/** An array literal of strings, every element quoted (so empty strings, NULL, braces and commas stay strings). */
export function textArrayLiteral(items: readonly string[]): string {
  let out = "{";
  for (let i = 0; i < items.length; i++) {
    if (i) out += ",";
    out += `"${items[i]!.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  }
  return `${out}}`;
}

/** A column value as COPY text (escaped), or `\N`. */
export function copyValue(value: unknown, type: CopyType): string {
  if (value === null || value === undefined) return "\\N";
  switch (type) {
    case "jsonb":
      return escapeCopy(jsonText(value));
    case "text[]":
      return escapeCopy(textArrayLiteral(value as string[]));
    case "boolean":
      return value ? "t" : "f";
    case "bigint":
    case "numeric":
    case "double precision":
      if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`a ${type} column cannot hold ${String(value)}`);
      return String(value);
    default:
      return escapeCopy(String(value));
  }
}

/** Text per CopyData message, about: fewer, larger messages than one per row. */
const CHUNK_CHARS = 64 * 1024;

/** Rows as COPY text, one line each in `columns`' order, gathered into chunks of about CHUNK_CHARS. */
export function copyChunks<R>(rows: readonly R[], columns: readonly (readonly [keyof R, CopyType])[]): string[] {
  const chunks: string[] = [];
  let chunk = "";
  for (const row of rows) {
    for (let i = 0; i < columns.length; i++) {
      const [c, t] = columns[i]!;
      if (i) chunk += "\t";
      chunk += copyValue(row[c], t);
    }
    chunk += "\n";
    if (chunk.length >= CHUNK_CHARS) {
      chunks.push(chunk);
      chunk = "";
    }
  }
  if (chunk) chunks.push(chunk);
  return chunks;
}

/**
 * Run a `COPY … FROM STDIN` statement on `client`, sending `chunks` (COPY text, whole lines) as its
 * data. Rejects with Postgres' error (its SQLSTATE kept) when a value is refused: nothing of the
 * COPY is stored.
 */
export async function copyFromText(client: pg.ClientBase, sql: string, chunks: readonly string[]): Promise<void> {
  const stream = client.query(copyFrom(sql));
  await new Promise<void>((resolve, reject) => {
    stream.on("error", reject);
    stream.on("finish", resolve);
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });
}

/** `COPY table (columns) FROM STDIN` of `rows` on `client` (inside the caller's transaction). */
export async function copyRows<R>(client: pg.ClientBase, table: string, rows: readonly R[], columns: readonly (readonly [keyof R, CopyType])[]): Promise<void> {
  if (!rows.length) return;
  await copyFromText(client, `COPY ${table} (${columns.map(([c]) => String(c)).join(", ")}) FROM STDIN`, copyChunks(rows, columns));
}
