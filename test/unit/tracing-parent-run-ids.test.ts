import { describe, expect, it } from "vitest";
import { parentRunIds } from "../../src/tracing/query/langsmith-run.js";

const ROOT = "0b6c2b1e-9a58-4b8e-8f7e-3a0c1d2e3f40";
const MID = "1c7d3c2f-ab69-4c9f-9a8f-4b1d2e3f4a51";
const RUN = "2d8e4d3a-bc7a-4daf-ab9a-5c2e3f4a5b62";

describe("parentRunIds (GET /runs/{id} parent_run_ids)", () => {
  it("names the ancestors root first, without the run itself", () => {
    expect(parentRunIds(`20260101T000000000001Z${ROOT}.20260101T000000000002Z${MID}.20260101T000000000003Z${RUN}`, RUN)).toEqual([ROOT, MID]);
  });
  it("names only well-formed ids when a client stored a dotted order of its own making", () => {
    // the response schema promises UUIDs: a made-up segment must not reach the answer
    expect(parentRunIds(`20260101T000000Zabc.xyz.20260101T000000000002Z${MID.toUpperCase()}.20260101T000000000003Z${RUN}`, RUN)).toEqual([MID]);
    expect(parentRunIds("", RUN)).toEqual([]);
    expect(parentRunIds(null, RUN)).toEqual([]);
  });
});
