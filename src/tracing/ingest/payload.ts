/**
 * Making a run's payloads storable without losing them (pure):
 * - base64 media (data URIs, and `base64` / `data` fields of media parts) longer than a threshold
 *   move to attachments, leaving `attachment://<name>` in their place;
 * - other strings longer than the limit are cut, with a marker saying how long they were;
 * - characters Postgres `jsonb` refuses (NUL, unpaired surrogates) become U+FFFD.
 */
import { createHash } from "node:crypto";

export const ATTACHMENT_SCHEME = "attachment://";

export interface ExtractedAttachment {
  name: string;
  contentType: string;
  data: Buffer;
}

export interface PayloadLimits {
  maxStringBytes: number;
  mediaThresholdBytes: number;
}

export interface PreparedPayload {
  value: unknown;
  attachments: ExtractedAttachment[];
  /** Number of strings cut. */
  truncated: number;
}

const DATA_URI_RE = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[\w-]+=[^;,]*)*);base64,/i;
const BASE64_RE = /^[A-Za-z0-9+/_-]+={0,2}$/;
// NUL and surrogates not part of a pair
const BAD_CHARS_RE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Keys whose base64 value is media, and where to find its type beside it. */
const MEDIA_KEYS = new Set(["base64", "data", "b64_json", "result", "file_data", "image_data"]);
const TYPE_KEYS = ["mime_type", "mimeType", "media_type", "mediaType", "content_type"];

export function truncationMarker(totalBytes: number): string {
  return `…[truncated by Berth: ${totalBytes} bytes in total]`;
}

export function preparePayload(value: unknown, limits: PayloadLimits): PreparedPayload {
  const attachments = new Map<string, ExtractedAttachment>();
  let truncated = 0;

  const toAttachment = (b64: string, contentType: string): string => {
    const data = Buffer.from(b64, "base64");
    const name = `sha256-${createHash("sha256").update(contentType).update("\n").update(data).digest("hex").slice(0, 32)}`;
    if (!attachments.has(name)) attachments.set(name, { name, contentType, data });
    return `${ATTACHMENT_SCHEME}${name}`;
  };

  const visitString = (s: string, key: string | undefined, parent: Record<string, unknown> | undefined): string => {
    if (s.length > limits.mediaThresholdBytes) {
      const uri = DATA_URI_RE.exec(s.slice(0, 200));
      if (uri) return toAttachment(s.slice(uri[0].length), uri[1] ?? "application/octet-stream");
      if (key && MEDIA_KEYS.has(key) && parent && BASE64_RE.test(s.slice(0, 1000)) && BASE64_RE.test(s.slice(-1000))) {
        return toAttachment(s, mediaTypeBeside(parent));
      }
    }
    let out = s;
    if (s.length > limits.maxStringBytes) {
      out = s.slice(0, limits.maxStringBytes) + truncationMarker(Buffer.byteLength(s));
      truncated++;
    }
    BAD_CHARS_RE.lastIndex = 0;
    return BAD_CHARS_RE.test(out) ? out.replace(BAD_CHARS_RE, "\uFFFD") : out;
  };

  const visit = (v: unknown, key: string | undefined, parent: Record<string, unknown> | undefined): unknown => {
    if (typeof v === "string") return visitString(v, key, parent);
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const next = visit(v[i], undefined, undefined);
        if (next !== v[i]) (copy ??= v.slice())[i] = next;
      }
      return copy ?? v;
    }
    if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      let copy: Record<string, unknown> | undefined;
      for (const k of Object.keys(o)) {
        const cleanKey = k.replace(BAD_CHARS_RE, "\uFFFD");
        const next = visit(o[k], k, o);
        if (next !== o[k] || cleanKey !== k) {
          copy ??= { ...o };
          if (cleanKey !== k) delete copy[k];
          copy[cleanKey] = next;
        }
      }
      return copy ?? o;
    }
    return v;
  };

  return { value: visit(value, undefined, undefined), attachments: [...attachments.values()], truncated };
}

function mediaTypeBeside(parent: Record<string, unknown>): string {
  for (const k of TYPE_KEYS) if (typeof parent[k] === "string") return parent[k] as string;
  // OpenAI input_audio {data, format}; image generation {output_format}
  if (typeof parent.format === "string") return `audio/${parent.format}`;
  if (typeof parent.output_format === "string") return `image/${parent.output_format}`;
  return "application/octet-stream";
}
