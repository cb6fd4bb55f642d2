/** Small HTTP helpers shared by the API tests. */

/** The HTTP status an SDK call ended with: 200 when it succeeded, the error's status otherwise. */
export async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
  return 200;
}

/** fetch against a server with a JSON content type (for requests the SDK cannot express). */
export function jsonFetch(baseUrl: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { ...init, headers: { "content-type": "application/json", ...(init.headers ?? {}) } });
}
