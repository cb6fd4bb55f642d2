/** "Did you mean" suggestions for misspelled configuration keys. */
import { describe, expect, it } from "vitest";
import { closestMatch, editDistance } from "../../src/shared/suggest.js";

const KEYS = ["graphs", "env", "dependencies", "node_version", "http", "store", "ui", "auth", "dockerfile_lines"];

describe("editDistance", () => {
  it("counts insertions, deletions, substitutions and adjacent swaps", () => {
    expect(editDistance("", "")).toBe(0);
    expect(editDistance("abc", "abc")).toBe(0);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("abc", "")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("grpahs", "graphs")).toBe(1);
    expect(editDistance("evn", "env")).toBe(1);
  });
});

describe("closestMatch", () => {
  it("suggests the intended key for typos", () => {
    expect(closestMatch("dependecies", KEYS)).toBe("dependencies");
    expect(closestMatch("grpahs", KEYS)).toBe("graphs");
    expect(closestMatch("Graphs", KEYS)).toBe("graphs");
    expect(closestMatch("evn", KEYS)).toBe("env");
    expect(closestMatch("nodeversion", KEYS)).toBe("node_version");
    expect(closestMatch("dockerfile_line", KEYS)).toBe("dockerfile_lines");
  });

  it("suggests nothing when no key is close", () => {
    expect(closestMatch("x", KEYS)).toBeUndefined();
    expect(closestMatch("ab", KEYS)).toBeUndefined();
    expect(closestMatch("environment_variables", KEYS)).toBeUndefined();
    expect(closestMatch("completely_different", KEYS)).toBeUndefined();
    expect(closestMatch("graphs", [])).toBeUndefined();
  });
});
