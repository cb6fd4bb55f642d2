/**
 * Editing a deployment's secrets without ever seeing them. The API returns every value masked; a
 * PATCH replaces the list wholesale, and a value sent back exactly as the API returned it (the mask)
 * keeps the stored one. So each draft either keeps its stored value (`value: null`: the masked value
 * the API gave is sent back untouched) or carries a new value the user typed.
 *
 * Values typed here live only in the form's state until the PATCH; they are never rendered back,
 * logged, or stored anywhere else.
 */
import type { Deployment } from "../api/types";

export interface SecretDraft {
  /** Stable key for React lists (names can be edited). */
  key: string;
  name: string;
  /** null: keep the stored value. */
  value: string | null;
  /** The name this secret had on the server (undefined for a new one). */
  storedName?: string;
}

type SecretList = Deployment["secrets"];

export function draftsFrom(secrets: SecretList | null | undefined): SecretDraft[] {
  return (secrets ?? []).map((s: { name: string }, i: number) => ({ key: `stored-${i}-${s.name}`, name: s.name, value: null, storedName: s.name }));
}

/** Problems the API would refuse anyway, said before the request: empty or repeated names, a new secret without a value. */
export function secretProblems(drafts: readonly SecretDraft[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const d of drafts) {
    const name = d.name.trim();
    if (!name) {
      problems.push("every secret needs a name");
      continue;
    }
    if (seen.has(name)) problems.push(`${name} appears twice`);
    seen.add(name);
    // a renamed secret has no stored value under its new name: the server could not keep it
    if (d.value === null && d.storedName !== name) problems.push(`${name} needs a value`);
  }
  return problems;
}

/**
 * The `secrets` of the PATCH body: kept ones with the masked value exactly as the API returned it
 * (the server then keeps the stored value), changed and new ones with what was typed.
 */
export function patchSecrets(drafts: readonly SecretDraft[], stored: SecretList | null | undefined): { name: string; value: string }[] {
  const maskedByName = new Map<string, string>((stored ?? []).map((s: { name: string; value: string }) => [s.name, s.value]));
  return drafts.map((d) => {
    const name = d.name.trim();
    if (d.value !== null) return { name, value: d.value };
    const masked = maskedByName.get(name);
    if (masked === undefined) throw new Error(`${name} has no stored value to keep`);
    return { name, value: masked };
  });
}

/** What the PATCH changes, for the confirmation question (names only). */
export function describeSecretChanges(drafts: readonly SecretDraft[], stored: SecretList | null | undefined): string {
  const before = new Set<string>((stored ?? []).map((s: { name: string }) => s.name));
  const after = new Set(drafts.map((d) => d.name.trim()));
  const added = [...after].filter((n) => !before.has(n));
  const removed = [...before].filter((n) => !after.has(n));
  const changed = drafts.filter((d) => d.value !== null && before.has(d.name.trim())).map((d) => d.name.trim());
  const parts = [
    added.length ? `add ${added.join(", ")}` : "",
    changed.length ? `change ${changed.join(", ")}` : "",
    removed.length ? `remove ${removed.join(", ")}` : "",
  ].filter(Boolean);
  return parts.length ? parts.join("; ") : "no changes (the same secrets again)";
}
