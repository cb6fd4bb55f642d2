/**
 * Fires due crons by enqueueing their runs. Runs in every worker process; SKIP LOCKED keeps two
 * processes from firing the same cron. Sleeps until the earliest next date (or a cron change).
 */
import type { AgentServerContext } from "../context.js";
import type { RunCreate } from "../api/schemas.js";
import type { RunService } from "../runs/service.js";
import type { CancelMessage } from "../runs/channels.js";

const MAX_SLEEP_MS = 30_000;

export class CronScheduler {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private unsubscribe?: () => Promise<void>;

  constructor(
    private readonly ctx: AgentServerContext,
    private readonly runService: RunService,
  ) {}

  /** Channel on which cron changes are announced, so the scheduler re-plans at once. */
  static channel(ctx: AgentServerContext): string {
    return `${ctx.settings.redisKeyPrefix}:crons`;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.ctx.bus.subscribe(CronScheduler.channel(this.ctx), () => this.schedule(0));
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const { crons, logger } = this.ctx;
    try {
      let fired = 0;
      let n: number;
      do {
        n = await crons.fireDue(async (cron, client) => {
          const payload = cron.payload as Partial<RunCreate>;
          const body = {
            ...payload,
            assistant_id: cron.assistant_id,
            on_completion: cron.on_run_completed,
            metadata: { ...(payload.metadata ?? {}), cron_id: cron.cron_id },
          } as RunCreate;
          const run = await this.runService.create(cron.thread_id, body, {}, client);
          fired++;
          logger.info({ cron_id: cron.cron_id, run_id: run.run_id }, "cron fired");
        });
      } while (n > 0 && !this.stopped);
      if (fired) await this.runService.afterCommit([] as CancelMessage[]);
    } catch (err) {
      logger.error({ err }, "cron tick failed");
    }
    const next = await crons.nextDue().catch(() => undefined);
    const delay = next ? Math.max(0, Math.min(MAX_SLEEP_MS, next.getTime() - Date.now())) : MAX_SLEEP_MS;
    this.schedule(delay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.unsubscribe?.();
  }
}
