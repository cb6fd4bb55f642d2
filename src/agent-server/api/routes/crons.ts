import { ApiRouter, Reply } from "../../../shared/http.js";
import type { AgentServerContext } from "../../context.js";
import { CronScheduler } from "../../queue/scheduler.js";
import { checkWebhookUrl } from "../../runs/webhooks.js";
import { selectFields } from "../../storage/sql.js";
import { paginationHeaders } from "../pagination.js";
import * as s from "../schemas.js";
import type { Response } from "express";
import { NotFoundError } from "../../../shared/errors.js";
import { authorizeRecord, authorizeThread, authzOf, type Authz } from "../../auth/access.js";

/** The run fields a cron stores and replays each time it fires. */
function runPayload(body: Partial<s.CronCreate>): Record<string, unknown> {
  const { schedule: _s, timezone: _t, end_time: _e, on_run_completed: _o, enabled: _en, assistant_id: _a, ...payload } = body;
  return Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined));
}

export function cronRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Crons";
  const announce = () => ctx.bus.publish(CronScheduler.channel(ctx), "1").catch(() => undefined);

  /** crons:<action> on one cron: another user's cron is "not found". */
  const onCron = (res: Response, cronId: string, action: string, value: Record<string, unknown> = { cron_id: cronId }) =>
    authorizeRecord(authzOf(ctx, res), "crons", action, value, () => ctx.crons.get(cronId).catch(() => undefined), () => new NotFoundError(`Cron ${cronId} not found`));

  const create = async (threadId: string | null, body: s.CronCreate, authz: Authz) => {
    await checkWebhookUrl(body.webhook, ctx.settings, ["body", "webhook"]);
    const assistant = await ctx.assistants.get(body.assistant_id);
    let metadata = body.metadata;
    if (authz.active) {
      // a cron on a thread runs on it: the thread must be the user's; crons:create may stamp the cron
      if (threadId) await authorizeThread(ctx, authz, threadId, "read");
      const value: Record<string, unknown> = {
        payload: runPayload(body), schedule: body.schedule, thread_id: threadId ?? undefined, user_id: authz.user?.identity,
        end_time: body.end_time, metadata: { ...(body.metadata ?? {}) },
      };
      await authz.check("crons", "create", value);
      metadata = typeof value.metadata === "object" && value.metadata !== null ? (value.metadata as Record<string, unknown>) : {};
    }
    if (threadId) await ctx.threads.get(threadId);
    const cron = await ctx.crons.create({
      assistantId: assistant.assistant_id,
      threadId,
      schedule: body.schedule,
      timezone: body.timezone,
      payload: runPayload(body),
      metadata,
      onRunCompleted: body.on_run_completed,
      enabled: body.enabled,
      endTime: body.end_time,
    });
    await announce();
    return cron;
  };

  router.add({ method: "post", path: "/runs/crons", tag, summary: "Create a stateless cron job", body: s.cronCreate }, ({ body, res }) => create(null, body, authzOf(ctx, res)));
  router.add({ method: "post", path: "/threads/:thread_id/runs/crons", tag, summary: "Create a cron job on a thread", uuidParams: ["thread_id"], body: s.cronCreate }, ({ params, body, res }) =>
    create(params.thread_id!, body, authzOf(ctx, res)),
  );
  router.add({ method: "post", path: "/runs/crons/search", tag, summary: "Search cron jobs", body: s.cronSearch, optionalBody: true }, async ({ body, res }) => {
    const assistant_id = body.assistant_id ? ctx.assistants.resolveId(body.assistant_id) : undefined;
    const authFilters = await authzOf(ctx, res).check("crons", "search", { assistant_id, thread_id: body.thread_id, limit: body.limit, offset: body.offset });
    const { items, total } = await ctx.crons.search({ ...body, assistant_id, authFilters });
    return new Reply(200, items.map((c) => selectFields(c as unknown as Record<string, unknown>, body.select)), paginationHeaders(total, body.offset, items.length));
  });
  router.add({ method: "post", path: "/runs/crons/count", tag, summary: "Count cron jobs", body: s.cronCount, optionalBody: true }, async ({ body, res }) => {
    const assistant_id = body.assistant_id ? ctx.assistants.resolveId(body.assistant_id) : undefined;
    const authFilters = await authzOf(ctx, res).check("crons", "search", { assistant_id, thread_id: body.thread_id, limit: 0, offset: 0 });
    return ctx.crons.count({ ...body, assistant_id, authFilters });
  });
  router.add({ method: "get", path: "/runs/crons/:cron_id", tag, summary: "Get a cron job", uuidParams: ["cron_id"] }, async ({ params, res }) => {
    await onCron(res, params.cron_id!, "read");
    return ctx.crons.get(params.cron_id!);
  });
  router.add({ method: "patch", path: "/runs/crons/:cron_id", tag, summary: "Update a cron job", uuidParams: ["cron_id"], body: s.cronUpdate }, async ({ params, body, res }) => {
    const { schedule, timezone, end_time, on_run_completed, enabled, ...rest } = body;
    await checkWebhookUrl(body.webhook, ctx.settings, ["body", "webhook"]);
    const value: Record<string, unknown> = { cron_id: params.cron_id, payload: runPayload(rest as Partial<s.CronCreate>), schedule, metadata: body.metadata };
    await onCron(res, params.cron_id!, "update", value);
    const metadata = (value.metadata ?? undefined) as Record<string, unknown> | undefined;
    const cron = await ctx.crons.update(params.cron_id!, {
      schedule,
      timezone,
      end_time,
      metadata,
      on_run_completed,
      enabled,
      payload: runPayload(rest as Partial<s.CronCreate>),
    });
    await announce();
    return cron;
  });
  router.add({ method: "delete", path: "/runs/crons/:cron_id", tag, summary: "Delete a cron job", uuidParams: ["cron_id"] }, async ({ params, res }) => {
    await onCron(res, params.cron_id!, "delete");
    await ctx.crons.delete(params.cron_id!);
    return Reply.noContent();
  });
}
