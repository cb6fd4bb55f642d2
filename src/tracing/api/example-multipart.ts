/**
 * Multipart bodies of `POST|PATCH /v1/platform/datasets/{id}/examples`, the `langsmith` SDK's way
 * of creating and changing examples (createExamples, updateExample…). Part names:
 *   {example_id}                     JSON: created_at, metadata, split, source_run_id, use_source_run_io
 *   {example_id}.inputs / .outputs   JSON objects
 *   {example_id}.attachment.{name}   a file; its content type is `mime; length=N` (the SDK's form)
 *   {example_id}.attachments_operations  JSON {rename: {old: new}, retain: [names]} (changes only)
 * A request is all or nothing: any unusable part fails it with a 422 naming the part, and a file
 * above the per-attachment limit (declared or actual) with a 413.
 */
import type { z } from "zod";
import { ApiError, ValidationError, zodIssuesToValidation, type ValidationIssue } from "../../shared/errors.js";
import { isUuid } from "../../shared/http.js";
import { findUnstorable, MAX_REQUEST_DEPTH } from "../../shared/text.js";
import type { Part } from "../ingest/multipart-splitter.js";
import type { Json } from "../datasets/rules.js";
import { parseAttachmentsOperations, readAttachmentPart, type AttachmentsOperations, type AttachmentUpload } from "../datasets/attachments.js";
import { multipartExampleBody } from "./dataset-schemas.js";

export interface ExamplePart {
  id: string;
  body: z.output<typeof multipartExampleBody>;
  inputs?: Json;
  outputs?: Json;
  attachments: AttachmentUpload[];
  attachments_operations?: AttachmentsOperations;
}

/** Parts → examples (pure), in the order their ids first appear; files above `maxAttachmentBytes` are a 413. */
export function assembleExamples(parts: Part[], maxAttachmentBytes: number): ExamplePart[] {
  const issues: ValidationIssue[] = [];
  const byId = new Map<string, { body?: unknown; inputs?: Json; outputs?: Json; attachments: AttachmentUpload[]; ops?: AttachmentsOperations }>();
  const entry = (id: string) => {
    let e = byId.get(id);
    if (!e) byId.set(id, (e = { attachments: [] }));
    return e;
  };
  for (const part of parts) {
    const loc = ["body", part.name];
    const [id, field, ...rest] = part.name.split(".");
    if (!id || !isUuid(id)) {
      issues.push({ loc, msg: "a part name must start with an example id (a UUID)", type: "uuid_parsing" });
      continue;
    }
    const key = id.toLowerCase();
    if (field === "attachment") {
      const name = rest.join(".");
      const read = readAttachmentPart(name, part.typeParams ? `${part.contentType}; ${part.typeParams}` : part.contentType, part.data, maxAttachmentBytes);
      if ("tooLarge" in read) throw new ApiError(413, read.tooLarge);
      if ("issue" in read) issues.push({ loc, ...read.issue });
      else if (entry(key).attachments.some((a) => a.name === name)) issues.push({ loc, msg: `attachment "${name}" is sent twice`, type: "value_error" });
      else entry(key).attachments.push(read.upload);
      continue;
    }
    if (field !== undefined && (rest.length || (field !== "inputs" && field !== "outputs" && field !== "attachments_operations"))) {
      issues.push({ loc, msg: `unknown part: expected ${id}, ${id}.inputs, ${id}.outputs, ${id}.attachment.{name} or ${id}.attachments_operations`, type: "value_error" });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(part.data.toString("utf8"));
    } catch (err) {
      issues.push({ loc, msg: `not valid JSON: ${(err as Error).message}`, type: "json_invalid" });
      continue;
    }
    const bad = findUnstorable(value, MAX_REQUEST_DEPTH);
    if (bad) {
      issues.push({ loc: [...loc, ...bad.path], msg: bad.msg, type: "string_unstorable" });
      continue;
    }
    if (field === undefined) {
      entry(key).body = value;
      continue;
    }
    if (field === "attachments_operations") {
      const ops = parseAttachmentsOperations(value);
      if (typeof ops === "string") issues.push({ loc, msg: ops, type: "value_error" });
      else entry(key).ops = ops;
      continue;
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      issues.push({ loc, msg: "must be a JSON object", type: "dict_type" });
      continue;
    }
    entry(key)[field] = value as Json;
  }
  const out: ExamplePart[] = [];
  for (const [id, e] of byId) {
    const parsed = multipartExampleBody.safeParse(e.body ?? {});
    if (!parsed.success) {
      issues.push(...zodIssuesToValidation("body", parsed.error).map((i) => ({ ...i, loc: ["body", id, ...i.loc.slice(1)] })));
      continue;
    }
    out.push({ id, body: parsed.data, inputs: e.inputs, outputs: e.outputs, attachments: e.attachments, attachments_operations: e.ops });
  }
  if (issues.length) throw new ValidationError(issues.slice(0, 50));
  if (!out.length) throw ValidationError.field(["body"], "no examples in the request", "missing");
  return out;
}
