/** Secrets at rest (AES-256-GCM), key parsing, rotation, masking and the keep-stored-value merge. */
import { describe, expect, it } from "vitest";
import { BadRequestError } from "../../src/shared/errors.js";
import {
  SECRET_MASK,
  SecretDecryptError,
  decryptSecret,
  encryptSecret,
  generateKey,
  keyFromConfig,
  keyToConfig,
  maskSecrets,
  needsReencrypt,
  openSecret,
} from "../../src/control-plane/rules/secrets.js";
import { mergeMaskedSecrets } from "../../src/control-plane/rules/masking.js";

const key = Buffer.alloc(32, 7);
const other = Buffer.alloc(32, 9);

/** Flips one bit of the decoded payload at `index` and re-encodes it. */
function flip(stored: string, index: number): string {
  const raw = Buffer.from(stored.slice(3), "base64");
  raw[index]! ^= 0x01;
  return "v1:" + raw.toString("base64");
}

describe("encrypt / decrypt", () => {
  it.each(["sk-live-123", "", "ünïcödé ✓ 🔑", "x".repeat(10_000), "line1\nline2=with=equals"])("round-trips %j", (plaintext) => {
    const stored = encryptSecret(plaintext, key);
    expect(stored.startsWith("v1:")).toBe(true);
    expect(decryptSecret(stored, key)).toBe(plaintext);
  });

  it("stores iv | tag | ciphertext and never the plaintext", () => {
    const stored = encryptSecret("hunter2-hunter2", key);
    expect(stored).not.toContain("hunter2");
    const raw = Buffer.from(stored.slice(3), "base64");
    expect(raw.length).toBe(12 + 16 + Buffer.byteLength("hunter2-hunter2"));
    expect(raw.toString("utf8")).not.toContain("hunter2");
  });

  it("uses a fresh IV each time, so equal plaintexts do not look equal", () => {
    const a = encryptSecret("same", key);
    const b = encryptSecret("same", key);
    expect(a).not.toBe(b);
    expect(Buffer.from(a.slice(3), "base64").subarray(0, 12)).not.toEqual(Buffer.from(b.slice(3), "base64").subarray(0, 12));
  });

  it("a wrong key fails with a clear error", () => {
    const stored = encryptSecret("secret", key);
    expect(() => decryptSecret(stored, other)).toThrow(SecretDecryptError);
    expect(() => decryptSecret(stored, other)).toThrow(/wrong key, or the stored value was tampered with/);
  });

  it.each([
    ["iv", 0],
    ["tag", 12],
    ["ciphertext", 30],
  ])("a flipped bit in the %s is detected", (_part, index) => {
    const stored = encryptSecret("a secret long enough", key);
    expect(decryptSecret(stored, key)).toBe("a secret long enough"); // the untouched value is fine
    expect(() => decryptSecret(flip(stored, index), key)).toThrow(SecretDecryptError);
  });

  it("truncated, unversioned or non-base64 values are refused without echoing them", () => {
    const stored = encryptSecret("topsecret", key);
    const cases = [stored.slice(3), "v2:" + stored.slice(3), "v1:" + Buffer.alloc(20).toString("base64"), "v1:not base64!!", "v1:"];
    for (const bad of cases) {
      let error: unknown;
      try {
        decryptSecret(bad, key);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(SecretDecryptError);
      expect((error as Error).message).not.toContain(bad.slice(3, 20) || "\u0000");
    }
    expect(() => decryptSecret("v1:" + Buffer.alloc(20).toString("base64"), key)).toThrow(/truncated/);
    expect(() => decryptSecret(stored.slice(3), key)).toThrow(/"v1:" prefix/);
  });

  it("refuses keys that are not 32 bytes", () => {
    expect(() => encryptSecret("x", Buffer.alloc(16))).toThrow(/32-byte/);
    expect(() => decryptSecret(encryptSecret("x", key), Buffer.alloc(31))).toThrow(/32-byte/);
    expect(() => decryptSecret(encryptSecret("x", key), [])).toThrow(/no secret encryption key/);
  });
});

describe("key rotation", () => {
  it("decrypts with any configured key, newest first, and reports which", () => {
    const newKey = generateKey();
    const oldStored = encryptSecret("old", key);
    const newStored = encryptSecret("new", newKey);
    expect(openSecret(newStored, [newKey, key])).toEqual({ plaintext: "new", keyIndex: 0 });
    expect(openSecret(oldStored, [newKey, key])).toEqual({ plaintext: "old", keyIndex: 1 });
    expect(decryptSecret(oldStored, [newKey, key])).toBe("old");
  });

  it("needsReencrypt is true only for values under an older key", () => {
    const newKey = generateKey();
    expect(needsReencrypt(encryptSecret("a", key), [newKey, key])).toBe(true);
    expect(needsReencrypt(encryptSecret("a", newKey), [newKey, key])).toBe(false);
    // once re-encrypted it no longer needs it
    const rotated = encryptSecret(decryptSecret(encryptSecret("a", key), [newKey, key]), newKey);
    expect(needsReencrypt(rotated, [newKey, key])).toBe(false);
  });

  it("a value under a key that was dropped cannot be decrypted", () => {
    const stored = encryptSecret("a", other);
    expect(() => needsReencrypt(stored, [generateKey(), key])).toThrow(/none of the 2 configured key/);
  });
});

describe("keys from config", () => {
  it("generateKey gives 32 random bytes that survive the config form", () => {
    const a = generateKey();
    expect(a.length).toBe(32);
    expect(a).not.toEqual(generateKey());
    expect(keyFromConfig(keyToConfig(a))).toEqual(a);
  });

  it("accepts hex, base64 (with or without padding) and base64url", () => {
    const raw = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i * 3)); // bytes that give + / in base64
    const b64 = raw.toString("base64");
    expect(b64).toMatch(/[+/]/);
    expect(keyFromConfig(raw.toString("hex"))).toEqual(raw);
    expect(keyFromConfig(raw.toString("hex").toUpperCase())).toEqual(raw);
    expect(keyFromConfig(b64)).toEqual(raw);
    expect(keyFromConfig(b64.replace(/=$/, ""))).toEqual(raw);
    expect(keyFromConfig(raw.toString("base64url"))).toEqual(raw);
    expect(keyFromConfig(`  ${b64}\n`)).toEqual(raw);
  });

  it.each([
    ["empty", "", /empty/],
    ["blank", "   ", /empty/],
    ["16 bytes hex", "ab".repeat(16), /32 bytes .*got 32 characters/],
    ["63 hex chars", "a".repeat(63), /got 63 characters/],
    ["hex with a non-hex char", "g" + "a".repeat(63), /32 bytes/],
    ["base64 of 24 bytes", Buffer.alloc(24, 1).toString("base64"), /32 bytes/],
    ["base64 of 48 bytes", Buffer.alloc(48, 1).toString("base64"), /32 bytes/],
    ["base64 with an invalid char", "*" + Buffer.alloc(32, 1).toString("base64").slice(1), /32 bytes/],
    ["a passphrase", "correct horse battery staple", /32 bytes/],
  ])("refuses %s", (_name, value, message) => {
    expect(() => keyFromConfig(value)).toThrow(message);
  });

  it("never echoes the rejected value", () => {
    const value = "my-super-secret-passphrase";
    expect(() => keyFromConfig(value)).toThrow();
    try {
      keyFromConfig(value);
    } catch (e) {
      expect((e as Error).message).not.toContain(value);
    }
  });
});

describe("masking", () => {
  it("the mask is one fixed placeholder", () => {
    expect(SECRET_MASK).toBe("********");
  });

  it("replaces every value and keeps names and order", () => {
    expect(maskSecrets([{ name: "OPENAI_API_KEY", value: "sk-1" }, { name: "EMPTY", value: "" }])).toEqual([
      { name: "OPENAI_API_KEY", value: SECRET_MASK },
      { name: "EMPTY", value: SECRET_MASK },
    ]);
    expect(maskSecrets([])).toEqual([]);
  });

  it("does not mutate its input", () => {
    const input = [{ name: "A", value: "1" }];
    maskSecrets(input);
    expect(input).toEqual([{ name: "A", value: "1" }]);
  });
});

describe("mergeMaskedSecrets", () => {
  const stored = [
    { name: "A", value: "a-stored" },
    { name: "B", value: "b-stored" },
    { name: "C", value: "c-stored" },
  ];

  it("sending the masked list back unchanged keeps every stored value", () => {
    expect(mergeMaskedSecrets(stored, maskSecrets(stored))).toEqual(stored);
  });

  it("a masked entry keeps the stored value of the same name; a real value replaces it", () => {
    expect(mergeMaskedSecrets(stored, [{ name: "B", value: SECRET_MASK }, { name: "A", value: "a-new" }])).toEqual([
      { name: "B", value: "b-stored" },
      { name: "A", value: "a-new" },
    ]);
  });

  it("the incoming list replaces wholesale: omitted names are dropped, new names added", () => {
    expect(mergeMaskedSecrets(stored, [{ name: "C", value: SECRET_MASK }, { name: "D", value: "d-new" }])).toEqual([
      { name: "C", value: "c-stored" },
      { name: "D", value: "d-new" },
    ]);
    expect(mergeMaskedSecrets(stored, [])).toEqual([]);
  });

  it("values that only look like the mask are taken literally", () => {
    expect(mergeMaskedSecrets(stored, [{ name: "A", value: "*******" }, { name: "B", value: " ********" }])).toEqual([
      { name: "A", value: "*******" },
      { name: "B", value: " ********" },
    ]);
  });

  it("a mask for a name with nothing stored is a 400 naming the secret", () => {
    const run = () => mergeMaskedSecrets(stored, [{ name: "A", value: SECRET_MASK }, { name: "NEW_KEY", value: SECRET_MASK }]);
    expect(run).toThrow(BadRequestError);
    expect(run).toThrow("secret NEW_KEY has no stored value to keep");
    try {
      run();
    } catch (e) {
      expect((e as BadRequestError).status).toBe(400);
    }
    expect(() => mergeMaskedSecrets([], [{ name: "X", value: SECRET_MASK }])).toThrow("secret X has no stored value to keep");
  });

  it("keeps a stored empty string (not mistaken for missing)", () => {
    expect(mergeMaskedSecrets([{ name: "E", value: "" }], [{ name: "E", value: SECRET_MASK }])).toEqual([{ name: "E", value: "" }]);
  });
});
