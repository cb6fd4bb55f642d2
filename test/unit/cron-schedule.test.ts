/** The cron schedule rule: when a schedule fires next, invalid schedules → 422, and the end_time cutoff. */
import { describe, expect, it } from "vitest";
import { ApiError, ValidationError } from "../../src/shared/errors.js";
import { nextRunDate } from "../../src/agent-server/storage/crons.js";

describe("nextRunDate", () => {
  const from = new Date("2030-01-01T10:07:30Z");

  it("gives the next firing time strictly after `from`", () => {
    expect(nextRunDate("*/15 * * * *", "UTC", from)?.toISOString()).toBe("2030-01-01T10:15:00.000Z");
    expect(nextRunDate("0 9 * * *", "UTC", from)?.toISOString()).toBe("2030-01-02T09:00:00.000Z");
    expect(nextRunDate("* * * * *", undefined, new Date("2030-01-01T10:07:00Z"))?.toISOString()).toBe("2030-01-01T10:08:00.000Z");
  });

  it("honours the time zone", () => {
    // 09:00 in New York on 1 January is 14:00 UTC.
    expect(nextRunDate("0 9 * * *", "America/New_York", from)?.toISOString()).toBe("2030-01-01T14:00:00.000Z");
  });

  it("rejects an invalid schedule with a 422 naming body.schedule", () => {
    for (const bad of ["not a cron", "61 * * * *", "* * *"]) {
      let caught: unknown;
      try {
        nextRunDate(bad, "UTC", from);
      } catch (err) {
        caught = err;
      }
      expect(caught, bad).toBeInstanceOf(ValidationError);
      const err = caught as ApiError;
      expect(err.status).toBe(422);
      const detail = err.detail as { loc: unknown[]; msg: string; type: string }[];
      expect(detail[0]!.loc).toEqual(["body", "schedule"]);
      expect(detail[0]!.msg).toContain(bad);
      expect(typeof detail[0]!.type).toBe("string");
    }
  });

  it("returns null when the next firing is after end_time, and a date when it is not", () => {
    expect(nextRunDate("0 9 * * *", "UTC", from, new Date("2030-01-02T08:59:59Z"))).toBeNull();
    expect(nextRunDate("0 9 * * *", "UTC", from, new Date("2030-01-02T09:00:00Z"))?.toISOString()).toBe("2030-01-02T09:00:00.000Z");
    expect(nextRunDate("0 9 * * *", "UTC", from, null)?.toISOString()).toBe("2030-01-02T09:00:00.000Z");
  });
});
