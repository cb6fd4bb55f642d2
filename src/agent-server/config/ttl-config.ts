/**
 * `store.ttl` and `checkpointer.ttl` of langgraph.json, as LangGraph Platform reads them: minutes
 * everywhere. Fractional minutes are accepted (the platform's own TTLConfig takes floats for
 * `default_ttl`), which also lets tests and short-lived deployments sweep every few seconds.
 */
import { z } from "zod";

/** At most 1,000 years, so an expiry stays a date Postgres can store. */
export const MAX_TTL_MINUTES = 525_600_000;
const minutes = z
  .number({ error: "must be a number of minutes" })
  .positive("must be a positive number of minutes")
  .max(MAX_TTL_MINUTES, `must be at most ${MAX_TTL_MINUTES} minutes (1,000 years)`);

export const storeTtlSchema = z
  .object({
    /** Minutes an item lives after it is written (or read, with refresh_on_read); none: items never expire unless a put says so. */
    default_ttl: minutes.nullish(),
    /** Reads (get/search) push the expiry of what they return forward; a read's `refresh_ttl` overrides it. */
    refresh_on_read: z.boolean({ error: "must be true or false" }).default(true),
    sweep_interval_minutes: minutes.nullish(),
  })
  .strict();

export const checkpointerTtlSchema = z
  .object({
    strategy: z
      .string({ error: 'must be "delete"' })
      .default("delete")
      .refine((s) => s === "delete", {
        error: (i) => (i.input === "keep_latest" ? '"keep_latest" is not supported by Berth yet: use "delete"' : 'must be "delete"'),
      }),
    /** Minutes a thread lives after its last update (runs, state writes, metadata). */
    default_ttl: minutes.nullish(),
    sweep_interval_minutes: minutes.nullish(),
  })
  .strict();

/** How often expired rows are deleted when the config does not say (they are invisible from the moment they expire). */
export const DEFAULT_SWEEP_MINUTES = 60;

export interface TtlSettings {
  store: { defaultTtl: number | null; refreshOnRead: boolean; sweepIntervalMinutes: number };
  threads: { defaultTtl: number | null; sweepIntervalMinutes: number };
}

export function ttlSettings(raw: { store?: { ttl?: z.infer<typeof storeTtlSchema> }; checkpointer?: { ttl?: z.infer<typeof checkpointerTtlSchema> } }): TtlSettings {
  const s = raw.store?.ttl;
  const c = raw.checkpointer?.ttl;
  return {
    store: { defaultTtl: s?.default_ttl ?? null, refreshOnRead: s?.refresh_on_read ?? true, sweepIntervalMinutes: s?.sweep_interval_minutes ?? DEFAULT_SWEEP_MINUTES },
    threads: { defaultTtl: c?.default_ttl ?? null, sweepIntervalMinutes: c?.sweep_interval_minutes ?? DEFAULT_SWEEP_MINUTES },
  };
}
