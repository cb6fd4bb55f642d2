/**
 * Signed links to example attachments, pure. The SDK's evaluate() hands `presigned_url`s to the
 * user's target, which fetches them without an API key: the signature is the credential. It covers
 * the tenant, the blob, the type it is served as and the expiry, so none can be changed; the key is
 * shared by every replica (stored in the database), and signatures are compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface SignedBlob {
  tenant: string;
  sha256: string;
  mime_type: string;
  /** Unix seconds. */
  expires: number;
}

const message = (b: SignedBlob) => ["example-attachment", b.tenant, b.sha256, b.mime_type, String(b.expires)].join("\n");

export function signBlob(key: Buffer, b: SignedBlob): string {
  return createHmac("sha256", key).update(message(b)).digest("base64url");
}

/** The query string of a signed link (the path names the blob). */
export function signedQuery(key: Buffer, b: SignedBlob): string {
  return new URLSearchParams({ tenant: b.tenant, type: b.mime_type, expires: String(b.expires), signature: signBlob(key, b) }).toString();
}

export type Verdict = "ok" | "bad-signature" | "expired";

/** Whether a link is genuine and still valid at `nowSeconds` (a forged link is refused before its expiry is looked at). */
export function verifyBlob(key: Buffer, b: SignedBlob, signature: string, nowSeconds: number): Verdict {
  const expected = Buffer.from(signBlob(key, b));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "bad-signature";
  return b.expires > nowSeconds ? "ok" : "expired";
}
