/**
 * The signed-in session: the API key and tenant, kept in sessionStorage so they last as long as
 * the browser tab and are never written to disk by the console or sent anywhere but this origin.
 */
export interface Session {
  /** Absent when the server lets this machine in without a key (`berth dev`, loopback). */
  apiKey?: string;
  tenantId?: string;
}

const KEY = "berth.session";
type Listener = (s: Session | null, reason?: string) => void;
const listeners = new Set<Listener>();

export function readSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function startSession(s: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
  for (const l of listeners) l(s);
}

export function endSession(reason?: string): void {
  sessionStorage.removeItem(KEY);
  for (const l of listeners) l(null, reason);
}

export function onSessionChange(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
