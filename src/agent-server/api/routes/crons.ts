import { ApiRouter, Reply } from "../../../shared/http.js";
import type { AgentServerContext } from "../../context.js";
import { CronScheduler } from "../../queue/scheduler.js";
import { checkWebhookUrl } from "../../runs/webhooks.js";
import { selectFields } from "../../storage/sql.js";
import { paginationHeaders } from "../pagination.js";
import * as s from "../schemas.js";

/** The run fields a cron stores and replays each time it fires. */
function runPayload(body: Partial<s.CronCreate>): Record<string, unknown> {
  const { schedule: _s, timezone: _t, end_time: _e, on_run_completed: _o, enabled: _en, assistant_id: _a, ...payload } = body;
  return Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined));
}

export function cronRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Crons";
  const announce = () => ctx.bus.publish(CronScheduler.channel(ctx), "1").catch(() => undefined);

  const create = async (threadId: string | null, body: s.CronCreate) => {
    await checkWebhookUrl(body.webhook, ctx.settings, ["body", "webhook"]);
    const assistant = await ctx.assistants.get(body.assistant_id);
    if (threadId) await ctx.threads.get(threadId);
    const cron = await ctx.crons.create({
      assistantId: assistant.assistant_id,
      threadId,
      schedule: body.schedule,
      timezone: body.timezone,
      payload: runPayload(body),
      metadata: body.metadata,
      onRunCompleted: body.on_run_completed,
      enabled: body.enabled,
      endTime: body.end_time,
    });
    await announce();
    return cron;
  };

  router.add({ method: "post", path: "/runs/crons", tag, summary: "Create a stateless cron job", body: s.cronCreate }, ({ body }) => create(null, body));
  router.add({ method: "post", path: "/threads/:thread_id/runs/crons", tag, summary: "Create a cron job on a thread", uuidParams: ["thread_id"], body: s.cronCreate }, ({ params, body }) =>
    create(params.thread_id!, body),
  );
  router.add({ method: "post", path: "/runs/crons/search", tag, summary: "Search cron jobs", body: s.cronSearch, optionalBody: true }, async ({ body }) => {
    const assistant_id = body.assistant_id ? ctx.assistants.resolveId(body.assistant_id) : undefined;
    const { items, total } = await ctx.crons.search({ ...body, assistant_id });
    return new Reply(200, items.map((c) => selectFields(c as unknown as Record<string, unknown>, body.select)), paginationHeaders(total, body.offset, items.length));
  });
  router.add({ method: "post", path: "/runs/crons/count", tag, summary: "Count cron jobs", body: s.cronCount, optionalBody: true }, ({ body }) =>
    ctx.crons.count({ ...body, assistant_id: body.assistant_id ? ctx.assistants.resolveId(body.assistant_id) : undefined }),
  );
  router.add({ method: "get", path: "/runs/crons/:cron_id", tag, summary: "Get a cron job", uuidParams: ["cron_id"] }, ({ params }) => ctx.crons.get(params.cron_id!));
  router.add({ method: "patch", path: "/runs/crons/:cron_id", tag, summary: "Update a cron job", uuidParams: ["cron_id"], body: s.cronUpdate }, async ({ params, body }) => {
    const { schedule, timezone, end_time, metadata, on_run_completed, enabled, ...rest } = body;
    await checkWebhookUrl(body.webhook, ctx.settings, ["body", "webhook"]);
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
  router.add({ method: "delete", path: "/runs/crons/:cron_id", tag, summary: "Delete a cron job", uuidParams: ["cron_id"] }, async ({ params }) => {
    await ctx.crons.delete(params.cron_id!);
    return Reply.noContent();
  });
}
