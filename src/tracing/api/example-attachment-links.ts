/**
 * Example attachments on the wire. Reads answer `attachment_urls: {"attachment.<name>":
 * {presigned_url, mime_type}}`, as LangSmith does; the SDK's evaluate() gives those links to the
 * user's target, which fetches them with no API key. So links are absolute (the 0.3.x SDK uses
 * them as they are; 0.12 resolves them against its API URL, which would drop a mount prefix) and
 * signed (signed-url.ts). `GET /public/example-attachments/{sha256}` serves a link's bytes after
 * checking its signature and expiry: 403 in the error shape otherwise.
 */
import type { Request } from "express";
import { z } from "zod";
import { ApiError, NotFoundError } from "../../shared/errors.js";
import { type ApiRouter, SENT } from "../../shared/http.js";
import { signedQuery, verifyBlob } from "../datasets/signed-url.js";
import type { AttachmentRef } from "../datasets/attachments.js";
import type { ExampleBlobStore } from "../storage/example-attachments.js";
import type { Example } from "../storage/examples.js";

export interface AttachmentOptions {
  /** Largest file of an example. */
  maxBytes: number;
  /** Lifetime of a signed link. */
  urlTtlSeconds: number;
}

export const PATH = "/public/example-attachments";

/**
 * The origin clients reached this server at, as the request shows it (a proxy in front may say
 * so with X-Forwarded-Proto/-Host), then the mount prefix; BERTH_PUBLIC_URL, when set, wins.
 */
export function publicBase(req: Request): string {
  const configured = process.env.BERTH_PUBLIC_URL?.replace(/\/+$/, "");
  const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h)?.split(",")[0]?.trim();
  const origin = configured || `${first(req.headers["x-forwarded-proto"]) || req.protocol}://${first(req.headers["x-forwarded-host"]) || req.get("host") || "localhost"}`;
  return `${origin}${req.baseUrl}`;
}

export type ExampleOnWire = Omit<Example, "attachments"> & { attachment_urls: Record<string, { presigned_url: string; mime_type: string }> | null };

/** Turns stored examples into their wire form, with fresh signed links to their files. */
export async function linker(blobs: ExampleBlobStore, options: AttachmentOptions, req: Request, tenant: string): Promise<(e: Example) => ExampleOnWire> {
  const key = await blobs.signingKey();
  const base = publicBase(req);
  const expires = Math.floor(Date.now() / 1000) + options.urlTtlSeconds;
  const link = (a: AttachmentRef) => `${base}${PATH}/${a.sha256}?${signedQuery(key, { tenant, sha256: a.sha256, mime_type: a.mime_type, expires })}`;
  return ({ attachments, ...e }) => ({
    ...e,
    attachment_urls: attachments.length ? Object.fromEntries(attachments.map((a) => [`attachment.${a.name}`, { presigned_url: link(a), mime_type: a.mime_type }])) : null,
  });
}

const LinkQuery = z.object({
  tenant: z.guid(),
  type: z.string().min(1).max(255),
  expires: z.coerce.number().int().min(0),
  signature: z.string().min(1).max(200),
});

/** Types a browser may show in place; anything else is a download (the bytes are user data). */
const INLINE = /^(image\/(png|jpe?g|gif|webp|avif)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain)$/i;

export function exampleAttachmentRoutes(router: ApiRouter, blobs: ExampleBlobStore): void {
  router.add(
    {
      method: "get",
      path: `${PATH}/:sha256`,
      tag: "Examples",
      summary: "The bytes of an example attachment, through a signed link from `attachment_urls` (no key needed: the signature is the credential)",
      query: LinkQuery,
      produces: "application/octet-stream",
      responses: { "200": "The file", "403": "Signature invalid or link expired", "404": "No such file" },
    },
    async ({ params, query: q, res }) => {
      const sha256 = params.sha256!;
      if (!/^[0-9a-f]{64}$/.test(sha256)) throw new NotFoundError("No such attachment.");
      const verdict = verifyBlob(await blobs.signingKey(), { tenant: q.tenant, sha256, mime_type: q.type, expires: q.expires }, q.signature, Math.floor(Date.now() / 1000));
      if (verdict === "bad-signature") throw new ApiError(403, "This attachment link is not valid (its signature does not match).");
      if (verdict === "expired") throw new ApiError(403, "This attachment link has expired: read the example again for a fresh one.");
      const data = await blobs.blob(q.tenant, sha256);
      res
        .status(200)
        .set({
          "Content-Type": q.type,
          "Content-Length": String(data.length),
          "Content-Disposition": INLINE.test(q.type) ? "inline" : "attachment",
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
          "Cache-Control": "private, max-age=3600, immutable",
        })
        .end(data);
      return SENT;
    },
  );
}
