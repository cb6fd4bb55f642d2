/**
 * Deployment secrets: encrypted at rest with AES-256-GCM, returned masked, and a masked value sent
 * back on PATCH keeps the stored one. No I/O here beyond the CSPRNG; keys come from config.
 *
 * Stored format: `v1:` + base64(iv[12] | tag[16] | ciphertext). The version prefix lets the format
 * change later without guessing; GCM's tag makes a wrong key and tampering both fail loudly instead
 * of yielding garbage. Key rotation: decrypt takes the configured keys newest first, and
 * `needsReencrypt` tells a background job which rows still use an older key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export interface SecretPair {
  name: string;
  value: string;
}

/**
 * What every secret value looks like in a response. Upstream does not document masking; a fixed
 * placeholder (rather than omitting `value`) keeps `value` a required string as the schema says, and
 * lets clients send the list back unchanged. The placeholder is therefore reserved: a value equal to
 * it always means "keep the stored one".
 */
export const SECRET_MASK = "********";

const FORMAT = "v1:";
const KEY_BYTES = 32;
const IV_BYTES = 12; // the GCM standard nonce size; random per encryption, so 2^32 encryptions per key stay safe
const TAG_BYTES = 16;

/** Decryption failed: wrong key, tampered or malformed data. A server-side fault, never the client's. */
export class SecretDecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretDecryptError";
  }
}

function assertKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
    throw new TypeError(`secret encryption key must be a ${KEY_BYTES}-byte Buffer`);
  }
}

export function generateKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/** The config form of a key (base64), e.g. for the key the embedded mode generates and keeps. */
export function keyToConfig(key: Buffer): string {
  assertKey(key);
  return key.toString("base64");
}

/**
 * A 32-byte key from config: 64 hex characters, or base64 / base64url (43 characters, optionally
 * one `=`). Anything else is refused with a message that never echoes the value, since it is a secret.
 * Hex is tried first; a 64-character hex string read as base64 would be 48 bytes, so no ambiguity.
 */
export function keyFromConfig(value: string): Buffer {
  const text = value.trim();
  if (text === "") throw new Error("secret encryption key is empty");
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  // Buffer.from(…, "base64") silently skips bad characters, so the shape is checked first.
  if (/^[A-Za-z0-9+/]{43}=?$/.test(text) || /^[A-Za-z0-9_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text.replace(/=$/, ""), text.includes("-") || text.includes("_") ? "base64url" : "base64");
    if (key.length === KEY_BYTES) return key;
  }
  throw new Error(
    `secret encryption key must be ${KEY_BYTES} bytes written as base64 (44 characters) or hex (64 characters); got ${text.length} characters`,
  );
}

export function encryptSecret(plaintext: string, key: Buffer): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return FORMAT + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
}

/** Decrypts with the first of `keys` (newest first) that authenticates; `keyIndex` says which one. */
export function openSecret(stored: string, keys: Buffer | readonly Buffer[]): { plaintext: string; keyIndex: number } {
  const keyring = Buffer.isBuffer(keys) ? [keys] : keys;
  if (keyring.length === 0) throw new TypeError("no secret encryption key configured");
  keyring.forEach(assertKey);
  // The stored text is never echoed in errors: a corrupted value may still carry secret bytes.
  if (!stored.startsWith(FORMAT)) throw new SecretDecryptError('stored secret is not in a known format (expected a "v1:" prefix)');
  const body = stored.slice(FORMAT.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new SecretDecryptError("stored secret is not valid base64");
  const raw = Buffer.from(body, "base64");
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretDecryptError("stored secret is truncated");
  const iv = raw.subarray(0, IV_BYTES);
  const tag = raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const ciphertext = raw.subarray(IV_BYTES + TAG_BYTES);
  for (const [keyIndex, key] of keyring.entries()) {
    const decipher = createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAuthTag(tag);
    try {
      const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
      return { plaintext, keyIndex };
    } catch {
      // GCM cannot tell a wrong key from tampering; try the next (older) key.
    }
  }
  throw new SecretDecryptError(
    `cannot decrypt secret: none of the ${keyring.length} configured key(s) matches (wrong key, or the stored value was tampered with)`,
  );
}

export function decryptSecret(stored: string, keys: Buffer | readonly Buffer[]): string {
  return openSecret(stored, keys).plaintext;
}

/** True when `stored` decrypts only with an older key (rotation pending). Throws if no key decrypts it. */
export function needsReencrypt(stored: string, keys: Buffer | readonly Buffer[]): boolean {
  return openSecret(stored, keys).keyIndex !== 0;
}

/** The secrets as a response shows them: names kept, every value replaced by SECRET_MASK. */
export function maskSecrets(secrets: readonly SecretPair[]): SecretPair[] {
  return secrets.map(({ name }) => ({ name, value: SECRET_MASK }));
}
