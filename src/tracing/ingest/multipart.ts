/**
 * `POST /runs/multipart` bodies, split as they stream (multipart-splitter.ts). Part names, as the
 * LangSmith SDKs send them:
 *   post.{run_id} / patch.{run_id}               the run (JSON) without its large fields
 *   post.{run_id}.{field} / patch.{run_id}.{field} inputs, outputs, events, extra, error, serialized
 *   attachment.{run_id}.{name}                    a file, with its content type
 *   feedback.{feedback_id}                        a feedback (JSON), handed to the caller to store
 * The JS SDK sends JSON parts as files (Blob), Python as fields; both are accepted.
 */
import type { Request } from "express";
import zlib from "node:zlib";
import { ApiError } from "../../shared/errors.js";
import { bodyStream } from "./body.js";
import { boundaryOf, MultipartError, MultipartSplitter, type Part } from "./multipart-splitter.js";
import { parseRemembered, parseShared } from "./raw-json.js";
import type { IngestAttachment, IngestOp } from "./service.js";

export interface ParsedMultipart {
  ops: IngestOp[];
  attachments: IngestAttachment[];
  /** Parts that could not be used, as `{part, error}`. */
  errors: { run_id?: string; error: string }[];
  /** `feedback.{id}` parts, parsed (the caller stores them once the runs are in). */
  feedback: Record<string, unknown>[];
}

const FIELDS = new Set(["inputs", "outputs", "events", "extra", "error", "serialized", "tags"]);

/** `raw`: filled with the body's bytes as sent (compressed), to stage them. */
export async function parseMultipart(req: Request, limit: number, raw?: Buffer[]): Promise<ParsedMultipart> {
  return assemble(await readMultipartParts(req, limit, raw));
}

/** A staged multipart body (as sent: compressed or not) → its parts again (recovery of a staged request). */
export function partsOfBody(body: Buffer, contentType: string, contentEncoding: string | null): Part[] {
  const encoding = (contentEncoding ?? "identity").toLowerCase().trim();
  const plain =
    encoding === "gzip" || encoding === "x-gzip" ? zlib.gunzipSync(body) : encoding === "deflate" ? zlib.inflateSync(body) : encoding === "br" ? zlib.brotliDecompressSync(body) : body;
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new MultipartError("the staged Content-Type has no boundary");
  const splitter = new MultipartSplitter(boundary);
  const parts = splitter.push(plain);
  splitter.end();
  return parts;
}

/** A multipart/form-data body's parts, decompressed (415 unless multipart, 413 past `limit` bytes, 400 when malformed). */
export async function readMultipartParts(req: Request, limit: number, raw?: Buffer[]): Promise<Part[]> {
  const type = req.headers["content-type"] ?? "";
  if (!/^multipart\/form-data\b/i.test(type)) throw new ApiError(415, `expected multipart/form-data, got "${type || "no content type"}"`);
  const boundary = boundaryOf(type);
  if (!boundary) throw new ApiError(400, "malformed multipart request: the Content-Type has no boundary");
  const splitter = new MultipartSplitter(boundary);
  const parts: Part[] = [];
  try {
    for await (const chunk of bodyStream(req, limit, raw)) for (const part of splitter.push(chunk)) parts.push(part);
    splitter.end();
  } catch (err) {
    if (err instanceof MultipartError) throw new ApiError(400, `malformed multipart request: ${err.message.replace(/^malformed multipart body: /, "")}`);
    throw err;
  }
  return parts;
}

/** Parts → ops (pure). Field parts attach to their run; order of parts does not matter. */
export function assemble(parts: { name: string; data: Buffer; contentType: string }[]): ParsedMultipart {
  /** touched: some part of the run was read into `body` already. */
  const runs = new Map<string, { kind: "post" | "patch"; id: string; body: Record<string, unknown>; touched?: boolean }>();
  const attachments: IngestAttachment[] = [];
  const errors: ParsedMultipart["errors"] = [];
  /** Runs whose own part could not be read: none of their parts is used (no nameless ghost run). */
  const broken = new Set<string>();
  const withOwnPart = new Set<string>();
  const feedback: ParsedMultipart["feedback"] = [];
  const runFor = (kind: "post" | "patch", id: string) => {
    const key = `${kind}.${id}`;
    let r = runs.get(key);
    if (!r) runs.set(key, (r = { kind, id, body: {} }));
    return r;
  };
  for (const part of parts) {
    // "{head}.{id}[.{rest}]", read without splitting into arrays (a request has ~5 parts per run)
    const name = part.name;
    const dot1 = name.indexOf(".");
    const dot2 = dot1 < 0 ? -1 : name.indexOf(".", dot1 + 1);
    const head = dot1 < 0 ? name : name.slice(0, dot1);
    const id = dot1 < 0 ? "" : dot2 < 0 ? name.slice(dot1 + 1) : name.slice(dot1 + 1, dot2);
    const field = dot2 < 0 ? "" : name.slice(dot2 + 1);
    if (!id) {
      errors.push({ error: `part "${part.name}" has no run id` });
      continue;
    }
    if (head === "attachment") {
      attachments.push({ runId: id.toLowerCase(), name: field || "attachment", contentType: part.contentType || "application/octet-stream", data: part.data });
      continue;
    }
    if (head === "feedback") {
      let value: unknown;
      try {
        value = JSON.parse(part.data.toString("utf8"));
      } catch (err) {
        errors.push({ error: `feedback part "${part.name}" is not valid JSON: ${(err as Error).message}` });
        continue;
      }
      if (value && typeof value === "object" && !Array.isArray(value)) feedback.push({ id, ...(value as Record<string, unknown>) });
      else errors.push({ error: `feedback part "${part.name}" must be a JSON object` });
      continue;
    }
    if (head !== "post" && head !== "patch") {
      errors.push({ run_id: id, error: `unknown part "${part.name}"` });
      continue;
    }
    const run = runFor(head, id);
    const text = part.data.toString("utf8");
    let value: unknown;
    try {
      // a payload part's text is kept for the merge to write as is (raw-json.ts); extra and
      // serialized repeat (a post and its patch, the runs of a trace): parsed once
      value = !field ? JSON.parse(text) : field === "extra" || field === "serialized" ? parseShared(text) : parseRemembered(text);
    } catch (err) {
      if (!field) {
        errors.push({ run_id: id, error: `part "${part.name}" is not valid JSON: ${(err as Error).message}; the run's other parts were not stored either` });
        broken.add(`${head}.${id}`);
        continue;
      }
      // a payload that is not JSON is still the user's data: keep it as text
      value = field === "error" ? text : { unparsed: text };
    }
    if (!field) {
      withOwnPart.add(`${head}.${id}`);
      if (value && typeof value === "object" && !Array.isArray(value)) {
        // the run's own part usually comes first: its parsed object becomes the body (no copy)
        if (!run.touched) run.body = value as Record<string, unknown>;
        else Object.assign(run.body, value, { ...pickFields(run.body) });
        run.touched = true;
      } else {
        errors.push({ run_id: id, error: `part "${part.name}" must be a JSON object; the run's other parts were not stored either` });
        broken.add(`${head}.${id}`);
      }
    } else if (FIELDS.has(field)) {
      run.body[field] = value;
      run.touched = true;
    }
    else errors.push({ run_id: id, error: `unknown field part "${part.name}"` });
  }
  // field parts need their run's own part: alone they would make a run with no name, forever pending
  for (const [key, r] of runs) {
    if (broken.has(key) || withOwnPart.has(key)) continue;
    errors.push({ run_id: r.id, error: `parts ${key}.* came without their run part "${key}": not stored` });
    broken.add(key);
  }
  const ops: IngestOp[] = [...runs.entries()].filter(([key]) => !broken.has(key)).map(([, r]) => ({ kind: r.kind, raw: r.body, idHint: r.id }));
  return { ops, attachments, errors, feedback };
}

/** Field parts already read win over the same keys inside the run part. */
function pickFields(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => FIELDS.has(k)));
}
