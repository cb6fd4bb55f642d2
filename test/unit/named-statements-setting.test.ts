/** `BERTH_PG_NAMED_STATEMENTS`: on by default, off with false/0, and a clear error for anything else. */
import { expect, it } from "vitest";
import { namedStatementsFromEnv } from "../../src/shared/db/index.js";

it("reads BERTH_PG_NAMED_STATEMENTS: unset or true/1 is on, false/0 is off, anything else is refused by name", () => {
  for (const v of [undefined, "", "true", "1", " TRUE "]) expect(namedStatementsFromEnv({ BERTH_PG_NAMED_STATEMENTS: v })).toBe(true);
  for (const v of ["false", "0", "False"]) expect(namedStatementsFromEnv({ BERTH_PG_NAMED_STATEMENTS: v })).toBe(false);
  for (const v of ["off", "no", "2", "\u0000"]) expect(() => namedStatementsFromEnv({ BERTH_PG_NAMED_STATEMENTS: v })).toThrow(/BERTH_PG_NAMED_STATEMENTS must be true or false/);
});
