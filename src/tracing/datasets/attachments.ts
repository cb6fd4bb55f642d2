/**
 * Rules of example attachments, pure: what an uploaded attachment part declares, and which files an
 * example has after an update. LangSmith's update semantics (its "update examples with attachments"
 * guide): an update that uploads files or carries `attachments_operations` drops the existing
 * files not named in `retain` or `rename`; naming a file the example does not have is an error;
 * a new upload wins over a rename to the same name. An update with neither leaves the files as
 * they are (a metadata change must not lose them).
 */
import { createHash } from "node:crypto";
import type { ValidationIssue } from "../../shared/errors.js";

/** A stored file of one version of an example: bytes are content-addressed (sha256, per tenant). */
export interface AttachmentRef {
  name: string;
  sha256: string;
  mime_type: string;
  size: number;
}

/** An uploaded file, with its digest. */
export interface AttachmentUpload extends AttachmentRef {
  data: Buffer;
}

export interface AttachmentsOperations {
  rename: Record<string, string>;
  retain: string[];
}

/** Attachment names: what a URL path segment and the SDK's `attachment.<name>` keys can carry. */
const NAME = /^[^\s/\\?#%][^/\\?#%]{0,254}$/;

export function checkAttachmentName(name: string): string | undefined {
  if (!NAME.test(name) || name.trim() !== name) return "an attachment name is 1-255 characters, without '/', '\\', '?', '#', '%' or surrounding spaces";
  return undefined;
}

/**
 * The `{id}.attachment.{name}` part's content type, as the SDK sends it: `image/png; length=1234`.
 * The declared length, when given, must be the part's size; either above `maxBytes` is a 413.
 */
export function readAttachmentPart(
  name: string,
  contentType: string,
  data: Buffer,
  maxBytes: number,
): { upload: AttachmentUpload } | { tooLarge: string } | { issue: Omit<ValidationIssue, "loc"> } {
  const bad = checkAttachmentName(name);
  if (bad) return { issue: { msg: bad, type: "value_error" } };
  const [mimeRaw, ...params] = contentType.split(";");
  const mime = (mimeRaw ?? "").trim().toLowerCase();
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(mime)) return { issue: { msg: `the part needs a content type (type/subtype), got "${contentType}"`, type: "value_error" } };
  const lengthParam = params.map((p) => p.trim()).find((p) => /^length=/i.test(p));
  if (lengthParam !== undefined) {
    const raw = lengthParam.slice("length=".length).trim();
    if (!/^\d{1,20}$/.test(raw)) return { issue: { msg: `length must be a byte count, got "${raw}"`, type: "value_error" } };
    const declared = Number(raw);
    if (declared > maxBytes) return { tooLarge: `attachment "${name}" declares ${raw} bytes; the limit is ${maxBytes} bytes per attachment` };
    if (declared !== data.length) return { issue: { msg: `declared length=${raw} but the part has ${data.length} bytes`, type: "value_error" } };
  }
  if (data.length > maxBytes) return { tooLarge: `attachment "${name}" has ${data.length} bytes; the limit is ${maxBytes} bytes per attachment` };
  return { upload: { name, mime_type: mime, size: data.length, sha256: createHash("sha256").update(data).digest("hex"), data } };
}

/** The `{id}.attachments_operations` part: `{rename?: {old: new}, retain?: [names]}`. */
export function parseAttachmentsOperations(value: unknown): AttachmentsOperations | string {
  if (!value || typeof value !== "object" || Array.isArray(value)) return "must be a JSON object {rename, retain}";
  const { rename = {}, retain = [], ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length) return `unknown keys: ${Object.keys(rest).join(", ")} (expected rename and retain)`;
  if (rename === null ? false : !rename || typeof rename !== "object" || Array.isArray(rename)) return "rename must be an object {old name: new name}";
  if (retain !== null && (!Array.isArray(retain) || retain.some((r) => typeof r !== "string"))) return "retain must be a list of names";
  const renameMap = (rename ?? {}) as Record<string, unknown>;
  for (const [from, to] of Object.entries(renameMap)) {
    if (typeof to !== "string") return `rename.${from} must be a name`;
    const bad = checkAttachmentName(to);
    if (bad) return `rename.${from}: ${bad}`;
  }
  return { rename: renameMap as Record<string, string>, retain: (retain ?? []) as string[] };
}

/**
 * The files of an example after an update: `undefined` uploads and operations keep the current
 * files; otherwise renamed and retained files, then the uploads (which win on a name clash).
 * Returns an error message for a name the example does not have, or two files renamed to one name.
 */
export function nextAttachments(current: AttachmentRef[], uploads: AttachmentRef[], ops: AttachmentsOperations | undefined): AttachmentRef[] | string {
  if (!uploads.length && !ops) return current;
  const byName = new Map(current.map((a) => [a.name, a]));
  const out = new Map<string, AttachmentRef>();
  if (ops) {
    const unknown = [...Object.keys(ops.rename), ...ops.retain].filter((n) => !byName.has(n));
    if (unknown.length) return `the example has no attachment named ${unknown.map((n) => `"${n}"`).join(", ")}`;
    for (const name of ops.retain) out.set(name, byName.get(name)!);
    for (const [from, to] of Object.entries(ops.rename)) {
      if (out.has(to) && to !== from) return `two attachments would be named "${to}"`;
      out.set(to, { ...byName.get(from)!, name: to });
    }
  }
  for (const u of uploads) out.set(u.name, { name: u.name, sha256: u.sha256, mime_type: u.mime_type, size: u.size });
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}
