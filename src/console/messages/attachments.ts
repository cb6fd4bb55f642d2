/**
 * Media Berth moved out of a payload is served by the tracing API, which wants the session's API
 * key: an <img src> cannot send it, so the file is fetched with the key and shown from a blob: URL.
 */
import { readSession } from "../api/session-store";

export async function fetchAttachment(path: string, signal?: AbortSignal): Promise<Blob> {
  const s = readSession();
  const headers: Record<string, string> = {};
  if (s?.apiKey) headers["X-Api-Key"] = s.apiKey;
  if (s?.tenantId) headers["X-Tenant-Id"] = s.tenantId;
  const res = await fetch(path, { headers, signal, credentials: "same-origin" });
  if (!res.ok) throw new Error(`the attachment could not be loaded (HTTP ${res.status})`);
  return res.blob();
}

/** Saves a blob under a name, the way a download link would. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  document.body.append(a);
  a.click();
  a.remove();
  // give the browser the time to start the download before the URL goes away
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
