/** Errors from the Kubernetes API: the HTTP status and the metav1.Status reason and message. */
export class KubeError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "KubeError";
  }

  static from(status: number, text: string, what: string): KubeError {
    let reason = "";
    let message = text.slice(0, 500);
    try {
      const body = JSON.parse(text) as { reason?: string; message?: string };
      reason = body.reason ?? "";
      message = body.message ?? message;
    } catch {
      // not a Status body (a proxy in between, say): keep the text
    }
    return new KubeError(status, reason, `${what}: ${status}${reason ? ` ${reason}` : ""}: ${message}`);
  }
}

const statusOf = (err: unknown): number | undefined => (err instanceof KubeError ? err.status : (err as { code?: unknown })?.code === 410 ? 410 : undefined);

export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
export const isConflict = (err: unknown): boolean => statusOf(err) === 409;
/** Worth retrying: conflicts, throttling, server trouble, network errors. */
export const isTransient = (err: unknown): boolean => {
  const s = statusOf(err);
  return s === undefined || s === 409 || s === 429 || s >= 500;
};
