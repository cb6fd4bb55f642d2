/**
 * The standalone Studio's credential: what the person typed, kept in sessionStorage only (gone
 * with the tab, never written anywhere else, sent only to this origin). Nothing else is stored.
 */
export type AuthHeader = "authorization" | "x-api-key";

export interface StudioCredential {
  header: AuthHeader;
  value: string;
}

const KEY = "berth.studio.credential";

export function readCredential(): StudioCredential | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    const c = raw ? (JSON.parse(raw) as Partial<StudioCredential>) : null;
    return c && (c.header === "authorization" || c.header === "x-api-key") && typeof c.value === "string" && c.value ? (c as StudioCredential) : null;
  } catch {
    return null;
  }
}

export function saveCredential(c: StudioCredential): void {
  sessionStorage.setItem(KEY, JSON.stringify(c));
}

export function forgetCredential(): void {
  sessionStorage.removeItem(KEY);
}

/** The request headers of a credential (pure): a bearer token, or an API key. */
export function credentialHeaders(c: StudioCredential | null): Record<string, string> {
  if (!c) return {};
  return c.header === "authorization" ? { Authorization: `Bearer ${c.value}` } : { "X-Api-Key": c.value };
}

/** The agent server's auth mode as `/info` reports it: `none` needs no credential. */
export function authModeOf(info: unknown): string {
  const mode = (info as { auth?: { mode?: unknown } } | null)?.auth?.mode;
  return typeof mode === "string" ? mode : "none";
}
