/**
 * Webhooks: when a run with `webhook` ends, its record is POSTed there. Failed deliveries (network
 * errors, 5xx, 429) are retried with exponential backoff; 4xx answers are final.
 */
import type { Logger } from "../../shared/logging.js";
import type { AgentServerContext } from "../context.js";
import type { ClaimedRun } from "../storage/runs.js";
import { toPlain } from "../serde.js";

export interface WebhookOptions {
  attempts?: number;
  /** Delay before the first retry; doubles each time. */
  baseDelayMs?: number;
  timeoutMs?: number;
  /** Extra request headers (e.g. an A2A notification token). */
  headers?: Record<string, string>;
}

export async function deliverWebhook(url: string, payload: unknown, logger: Logger, opts: WebhookOptions = {}): Promise<boolean> {
  const attempts = opts.attempts ?? 5;
  const base = opts.baseDelayMs ?? 1000;
  const body = JSON.stringify(payload);
  for (let i = 0; i < attempts; i++) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "berth-webhook/1", ...(opts.headers ?? {}) },
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
      await res.body?.cancel().catch(() => undefined);
      if (res.ok) return true;
      if (res.status < 500 && res.status !== 429) {
        logger.warn({ url, status: res.status }, "webhook refused; not retrying");
        return false;
      }
      logger.warn({ url, status: res.status, attempt: i + 1 }, "webhook failed");
    } catch (err) {
      logger.warn({ url, err: (err as Error).message, attempt: i + 1 }, "webhook delivery error");
    }
    if (i < attempts - 1) await new Promise((r) => setTimeout(r, base * 2 ** i));
  }
  return false;
}

/** POST the record of a run that ended to its webhook; remember a delivery that succeeded. */
export async function sendRunWebhook(ctx: AgentServerContext, run: ClaimedRun, status: string, values: unknown, error: unknown): Promise<void> {
  const payload = {
    ...toPlain<Record<string, unknown>>((await ctx.runs.find(run.run_id).catch(() => undefined)) ?? run),
    status,
    run_started_at: run.started_at,
    run_ended_at: new Date().toISOString(),
    webhook_sent_at: new Date().toISOString(),
    values,
    error: error ?? null,
  };
  const ok = await deliverWebhook(run.webhook!, payload, ctx.logger);
  if (ok) await ctx.runs.markWebhookSent(run.run_id).catch(() => undefined);
}
