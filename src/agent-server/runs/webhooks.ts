/**
 * Webhooks: when a run with `webhook` ends, its record is POSTed there. Failed deliveries (network
 * errors, 5xx, 429) are retried with exponential backoff; 4xx and 3xx answers are final (redirects
 * are not followed), and so is a target the outbound policy refuses (src/shared/outbound.ts).
 */
import type { AgentServerSettings } from "../../shared/config.js";
import { ValidationError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logging.js";
import { OutboundRefused, outboundUrlProblem, parseOutboundPolicy, postOutbound, PUBLIC_ONLY, type OutboundPolicy } from "../../shared/outbound.js";
import type { AgentServerContext } from "../context.js";
import type { ClaimedRun } from "../storage/runs.js";
import { toPlain } from "../serde.js";

/** The outbound policy of this server's settings (validated when the settings were read). */
export function webhookPolicy(settings: Pick<AgentServerSettings, "allowPrivateWebhooks">): OutboundPolicy {
  return parseOutboundPolicy(settings.allowPrivateWebhooks);
}

/**
 * Refuse, as a 422 naming `loc`, a webhook URL whose host the policy refuses now. Delivery checks
 * again (DNS may change in between).
 */
export async function checkWebhookUrl(url: string | null | undefined, settings: Pick<AgentServerSettings, "allowPrivateWebhooks">, loc: (string | number)[]): Promise<void> {
  if (!url) return;
  const problem = await outboundUrlProblem(url, webhookPolicy(settings));
  if (problem) throw ValidationError.field(loc, `webhook not allowed: ${problem}`, "url_not_allowed");
}

export interface WebhookOptions {
  attempts?: number;
  /** Delay before the first retry; doubles each time. */
  baseDelayMs?: number;
  timeoutMs?: number;
  /** Extra request headers (e.g. an A2A notification token). */
  headers?: Record<string, string>;
  /** Which addresses may be contacted (default: public ones only). */
  policy?: OutboundPolicy;
}

export async function deliverWebhook(url: string, payload: unknown, logger: Logger, opts: WebhookOptions = {}): Promise<boolean> {
  const attempts = opts.attempts ?? 5;
  const base = opts.baseDelayMs ?? 1000;
  const body = JSON.stringify(payload);
  const headers = { "content-type": "application/json", "user-agent": "berth-webhook/1", ...(opts.headers ?? {}) };
  for (let i = 0; i < attempts; i++) {
    try {
      const { status } = await postOutbound(url, body, headers, opts.policy ?? PUBLIC_ONLY, opts.timeoutMs ?? 10_000);
      if (status >= 200 && status < 300) return true;
      if (status < 500 && status !== 429) {
        logger.warn({ url, status }, "webhook refused; not retrying");
        return false;
      }
      logger.warn({ url, status, attempt: i + 1 }, "webhook failed");
    } catch (err) {
      if (err instanceof OutboundRefused) {
        logger.warn({ url, reason: err.message }, "webhook target not allowed; not delivering");
        return false;
      }
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
  const ok = await deliverWebhook(run.webhook!, payload, ctx.logger, { policy: webhookPolicy(ctx.settings) });
  if (ok) await ctx.runs.markWebhookSent(run.run_id).catch(() => undefined);
}
