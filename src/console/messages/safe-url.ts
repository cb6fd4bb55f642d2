/**
 * Which URLs from a trace may become a `src` or `href` (pure). Trace payloads are untrusted: a
 * model, a tool or a client can put anything in them, so a URL is used only when it cannot run
 * script or leave the sandbox of an <img>/<audio>/<video>/download. Everything else is shown as
 * text, never dropped silently.
 */

export type MediaKind = "image" | "audio" | "video" | "file";

/**
 * A usable source: `external` (http/https, loaded from where the model saw it), `attachment`
 * (a media file Berth moved out of the payload; needs the session's credentials, so it is fetched,
 * not linked) or `data` (inline base64 of an allowed media type).
 */
export type SafeSource = { kind: "external"; url: string } | { kind: "attachment"; url: string } | { kind: "data"; url: string; mime: string };

/** Why a block's media is not shown: said beside the raw value. */
export type Unsafe = { kind: "unsafe"; reason: string };

/** The tracing API's attachment route: the only relative URL a trace detail hands out. */
const ATTACHMENT_PATH = /^\/tracing\/runs\/[^/?#\\]+\/attachments\/[^/?#\\]+$/;

/** Media types that browsers render passively in each element (no SVG: it is a document). */
const INLINE_MIME: Record<Exclude<MediaKind, "file">, RegExp> = {
  image: /^image\/(png|jpeg|jpg|gif|webp|avif|bmp)$/,
  audio: /^audio\/[a-z0-9.+-]+$/,
  video: /^video\/[a-z0-9.+-]+$/,
};
/** A file is only ever downloaded, so any well-formed type will do. */
const ANY_MIME = /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/;

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** An http(s) URL as the browser would parse it; undefined for any other scheme or garbage. */
export function httpUrl(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const s = raw.trim();
  // the URL parser ignores tabs/newlines inside schemes ("java\nscript:"): reject them outright
  if (s === "" || /[\u0000-\u001f\u007f]/.test(s)) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
}

/** A link target in Markdown or an annotation: http(s) only. */
export function safeHref(raw: unknown): string | undefined {
  return httpUrl(raw);
}

/** `/tracing/runs/<id>/attachments/<name>`, exactly; anything else relative is refused. */
export function attachmentPath(raw: unknown): string | undefined {
  if (typeof raw !== "string" || !ATTACHMENT_PATH.test(raw)) return undefined;
  // a "." or ".." segment (also percent-encoded) would make the browser fetch another route
  return raw.split("/").some((seg) => /^(\.|%2e){1,2}$/i.test(seg)) ? undefined : raw;
}

function mimeAllowed(kind: MediaKind, mime: string): boolean {
  return kind === "file" ? ANY_MIME.test(mime) : INLINE_MIME[kind].test(mime);
}

/** Leading bytes (in base64) of the common formats clients send without a media type. */
const SIGNATURES: [prefix: string, mime: string][] = [
  ["iVBORw0KGgo", "image/png"],
  ["/9j/", "image/jpeg"],
  ["R0lGOD", "image/gif"],
  ["SUQz", "audio/mpeg"],
  ["T2dnUw", "audio/ogg"],
  ["JVBERi0", "application/pdf"],
];

/** The media type of untyped base64 data, from its first bytes (RIFF is told apart by its form). */
export function sniffMime(b64: string): string | undefined {
  if (b64.startsWith("UklGR")) {
    let form = "";
    try {
      form = atob(b64.slice(0, 16)).slice(8, 12);
    } catch {
      return undefined; // too short to tell
    }
    return form === "WAVE" ? "audio/wav" : form === "WEBP" ? "image/webp" : undefined;
  }
  return SIGNATURES.find(([prefix]) => b64.startsWith(prefix))?.[1];
}

/**
 * A data: URL from a block's base64 and mime type, when the type fits the element (an image
 * block's `text/html` is refused). Without a type, the data's first bytes name it; a file whose
 * type is still unknown downloads as octet-stream.
 */
export function dataUrl(kind: MediaKind, base64: unknown, mimeType: unknown): SafeSource | Unsafe {
  if (typeof base64 !== "string" || base64 === "") return { kind: "unsafe", reason: "no data" };
  const raw = base64.replace(/\s+/g, "");
  if (!BASE64.test(raw)) return { kind: "unsafe", reason: "the data is not base64" };
  // browsers decode data: URLs as standard base64 only
  const b64 = raw.replace(/-/g, "+").replace(/_/g, "/");
  const mime = typeof mimeType === "string" && mimeType !== "" ? mimeType.trim().toLowerCase() : (sniffMime(b64) ?? (kind === "file" ? "application/octet-stream" : ""));
  if (mime === "") return { kind: "unsafe", reason: `no media type for inline ${kind} data` };
  if (!mimeAllowed(kind, mime)) return { kind: "unsafe", reason: `media type ${mime} is not shown as ${kind === "image" ? "an" : "a"} ${kind}` };
  return { kind: "data", url: `data:${mime};base64,${b64}`, mime };
}

/**
 * A `data:` URL given as a block's `url` is split and checked like inline base64 (the normaliser
 * usually splits them already; clients' native blocks may not).
 */
function fromDataUrl(kind: MediaKind, url: string): SafeSource | Unsafe {
  const m = /^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$/is.exec(url);
  if (!m) return { kind: "unsafe", reason: "only base64 data: URLs are shown" };
  return dataUrl(kind, m[2], m[1]);
}

/** Where a media block's content can be loaded from, or why it cannot. */
export function mediaSource(kind: MediaKind, block: { url?: unknown; base64?: unknown; mime_type?: unknown }): SafeSource | Unsafe | undefined {
  if (typeof block.url === "string" && block.url !== "") {
    const url = block.url.trim();
    if (/^data:/i.test(url)) return fromDataUrl(kind, url);
    const attachment = attachmentPath(url);
    if (attachment) return { kind: "attachment", url: attachment };
    const http = httpUrl(url);
    return http ? { kind: "external", url: http } : { kind: "unsafe", reason: "only http(s) URLs are loaded" };
  }
  if (block.base64 !== undefined) return dataUrl(kind, block.base64, block.mime_type);
  return undefined;
}

/**
 * react-markdown's URL hook: links keep http(s) targets, images also inline data: images; any
 * other URL becomes empty and the element is shown without it.
 */
export function markdownUrl(url: string, key: string): string | undefined {
  if (key === "src") {
    const src = /^data:/i.test(url.trim()) ? fromDataUrl("image", url.trim()) : undefined;
    if (src) return src.kind === "data" ? src.url : undefined;
    return httpUrl(url);
  }
  return key === "href" ? safeHref(url) : undefined;
}
