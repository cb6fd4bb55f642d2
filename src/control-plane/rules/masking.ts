/**
 * Secret values are never returned (issue 5; upstream leaves this undocumented, reference §1.4):
 * responses carry the mask instead. The mask and `maskSecrets` are defined once, in secrets.ts, with
 * the encryption; this module adds the PATCH step: a client that reads a deployment, edits it and
 * sends it back sends the mask for the secrets it did not touch, and `unmaskSecrets` keeps the stored
 * value for those. `unmaskSecrets` reports the indexes it could not resolve, so planPatch can
 * answer with a 422 whose loc points at the value; `mergeMaskedSecrets` is the same rule for callers
 * that want a 400 instead.
 */
import { BadRequestError } from "../../shared/errors.js";
import { SECRET_MASK } from "./secrets.js";
import type { Secret } from "./schemas.js";

export { maskSecrets } from "./secrets.js";

/** The placeholder every secret value is replaced with in responses (an alias of SECRET_MASK). */
export const MASK = SECRET_MASK;

export interface UnmaskResult {
  secrets: Secret[];
  /** Indexes of incoming secrets that carry MASK but have no stored secret of that name to keep. */
  unresolved: number[];
}

/**
 * The incoming list replaces the stored one wholesale; an incoming MASK value means "keep the stored
 * value of the secret with this name". Pure: the caller passes the decrypted stored secrets.
 */
export function unmaskSecrets(stored: readonly Secret[], incoming: readonly Secret[]): UnmaskResult {
  const byName = new Map(stored.map((s) => [s.name, s.value]));
  const unresolved: number[] = [];
  const secrets = incoming.map((s, i) => {
    if (s.value !== MASK) return { name: s.name, value: s.value };
    const kept = byName.get(s.name);
    if (kept === undefined) {
      unresolved.push(i);
      return { name: s.name, value: s.value };
    }
    return { name: s.name, value: kept };
  });
  return { secrets, unresolved };
}

/**
 * `unmaskSecrets` for callers outside a request body (the runtime, redeploys): a mask for a name
 * with no stored value is a client error (400), never stored as a literal mask.
 */
export function mergeMaskedSecrets(stored: readonly Secret[], incoming: readonly Secret[]): Secret[] {
  const { secrets, unresolved } = unmaskSecrets(stored, incoming);
  if (unresolved.length) throw new BadRequestError(`secret ${incoming[unresolved[0]!]!.name} has no stored value to keep`);
  return secrets;
}
