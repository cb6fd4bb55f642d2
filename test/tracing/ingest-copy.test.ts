/**
 * On Postgres the merge writes new runs with COPY (text format), on the embedded database with an
 * INSERT: either way a run must come back exactly as sent. The values here are the ones COPY's
 * text format gives a meaning to (tab, newline, carriage return, backslash, `\N`, `\.`), the ones
 * an array literal does (quotes, commas, braces, NULL, empty strings), and a payload sent as
 * pretty-printed JSON (its text is written as sent: raw newlines and tabs between the tokens).
 * And a run Postgres itself refuses (a constraint the test adds to its own database) costs only that
 * run, whichever way its batch was written.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { describeBackends, eventually } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

/** multipart/form-data with JSON parts as files, the way the JS SDK sends them (text parts as given). */
function multipart(parts: [string, unknown][]): FormData {
  const form = new FormData();
  for (const [name, value] of parts) form.append(name, new Blob([typeof value === "string" ? value : JSON.stringify(value)], { type: "application/json" }), name);
  return form;
}

const NASTY = "tab\there\nnewline\r\ncrlf back\\slash \\N \\. \\\\t end 😀漢字";
const NASTY_TAGS = ["a,b", "{brace}", '"quoted"', "back\\slash", "NULL", "", "tab\tin", "new\nline", "\\N"];

describeBackends("tracing runs with the characters COPY and array literals give a meaning to", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s));
  const project = `copy\\${backend}\t${randomUUID().slice(0, 6)}`;
  const send = async (form: FormData) => {
    const res = await fetch(`${server.url}/runs/multipart`, { method: "POST", body: form, headers: server.apiKey ? { "x-api-key": server.apiKey } : {} });
    return { status: res.status, body: (await res.json()) as { accepted: number; errors?: { run_id?: string; error: string }[] } };
  };
  const stored = async (id: string) => (await server.api(`/runs/${id}`)).body;

  it("stores every text column, array and payload as sent", async () => {
    const id = randomUUID();
    const start = "2026-11-28T10:00:00.123456Z";
    // the payload's own text, as an SDK may send it: pretty-printed, escapes inside its strings
    const inputsText = `{\n\t"s": "a\\tb\\nc\\\\d\\"e \\\\N",\r\n\t"list": [1, 2.5, -0.001, "\\u00e9"],\n\t"nested": {"k\\tey": null}\n}`;
    const res = await send(
      multipart([
        [`post.${id}`, { id, trace_id: id, dotted_order: `20261128T100000123456Z${id}`, name: NASTY, run_type: "chain", session_name: project, start_time: start, tags: NASTY_TAGS }],
        [`post.${id}.inputs`, inputsText],
        [`post.${id}.extra`, { metadata: { thread_id: `thread\\${NASTY}`, note: NASTY } }],
        [`patch.${id}`, { id, trace_id: id, end_time: "2026-11-28T10:00:01.5Z", error: `Traceback:\n\tline 1\r\n${NASTY}` }],
        [`patch.${id}.outputs`, { out: NASTY, n: 12345, f: 0.30000000000000004 }],
        [`patch.${id}.extra`, { metadata: { thread_id: `thread\\${NASTY}`, note: NASTY } }],
      ]),
    );
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(1);
    const run = await stored(id);
    expect(run.name).toBe(NASTY);
    expect((await server.api(`/projects/${run.project_id}`)).body.name).toBe(project);
    expect([...run.tags].sort()).toEqual([...NASTY_TAGS].sort());
    expect(run.inputs).toEqual(JSON.parse(inputsText));
    expect(run.outputs).toEqual({ out: NASTY, n: 12345, f: 0.30000000000000004 });
    expect(run.error).toBe(`Traceback:\n\tline 1\r\n${NASTY}`);
    expect(run.metadata).toEqual({ thread_id: `thread\\${NASTY}`, note: NASTY });
    expect(run.thread_id).toBe(`thread\\${NASTY}`);
    expect(run.status).toBe("error");
    expect(Date.parse(run.start_time)).toBe(Date.parse(start));
    expect(Date.parse(run.end_time)).toBe(Date.parse("2026-11-28T10:00:01.5Z"));
  });

  it("a run Postgres refuses costs only itself: the others of its batch are stored", async () => {
    const pool = server.handle.facility.pool;
    await pool.query("ALTER TABLE tracing_runs ADD CONSTRAINT test_refused CHECK (name <> 'refused by postgres')");
    try {
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      const names = ["kept 1", "refused by postgres", `kept\t${NASTY}`];
      const res = await fetch(`${server.url}/runs/batch`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(server.apiKey ? { "x-api-key": server.apiKey } : {}) },
        body: JSON.stringify({ post: ids.map((id, i) => ({ id, trace_id: id, name: names[i], run_type: "chain", session_name: project, start_time: new Date().toISOString() })) }),
      });
      expect(res.status).toBeLessThan(300);
      await eventually(async () => (await server.api(`/runs/${ids[2]}`)).status === 200);
      expect((await stored(ids[0]!)).name).toBe("kept 1");
      expect((await stored(ids[2]!)).name).toBe(`kept\t${NASTY}`);
      expect((await server.api(`/runs/${ids[1]}`)).status).toBe(404);
      await eventually(async () => (await pool.query("SELECT 1 FROM tracing_ingest_failures WHERE run_id = $1", [ids[1]])).rows.length === 1);
      const { rows } = await pool.query<{ error: string }>("SELECT error FROM tracing_ingest_failures WHERE run_id = $1", [ids[1]]);
      expect(rows[0]!.error).toMatch(/test_refused/);
    } finally {
      await pool.query("ALTER TABLE tracing_runs DROP CONSTRAINT test_refused");
    }
  });
});
