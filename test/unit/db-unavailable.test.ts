import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src/shared/db/unavailable.js";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it("recognises a database that is down, restarting or cut off", () => {
    for (const err of [
      withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      withCode("ECONNRESET"),
      withCode("57P01", "terminating connection due to administrator command"),
      withCode("57P03", "the database system is starting up"),
      withCode("08006", "connection failure"),
      new Error("Connection terminated unexpectedly"),
      new Error("Client has encountered a connection error and is not queryable"),
      new Error("timeout exceeded when trying to connect"),
      new Error("wrapped", { cause: withCode("ECONNREFUSED") }),
    ]) {
      expect(isDatabaseUnavailable(err), String(err)).toBe(true);
    }
  });

  it("leaves every other failure alone", () => {
    for (const err of [
      withCode("23505", "duplicate key value violates unique constraint"),
      withCode("42P01", 'relation "x" does not exist'),
      withCode("57014", "canceling statement due to statement timeout"),
      new Error("something else"),
      "a string",
      null,
      undefined,
    ]) {
      expect(isDatabaseUnavailable(err), String(err)).toBe(false);
    }
  });
});
