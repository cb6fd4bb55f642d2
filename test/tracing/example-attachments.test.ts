/**
 * Dataset example attachments through the real `langsmith` SDKs (0.12, and 0.3.x's upload), on
 * both backends: files uploaded with examples come back as absolute signed links that plain
 * fetch() reads without a key; updates rename, retain and drop files while older versions (as_of)
 * keep theirs; identical bytes are stored once; evaluate() hands the files to a target that reads
 * them. Adversarial: tampered and expired links, another tenant, declared lengths that lie or
 * exceed the limit, files above it.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Client, Example } from "langsmith";
import { Client as Client03 } from "langsmith-0-3";
import { evaluate } from "langsmith/evaluation";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { signedQuery } from "../../src/tracing/datasets/signed-url.js";
import { describeBackends, eventually } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

process.env.LANGSMITH_TRACING = "true";

const LIMIT = 64 * 1024;
const bytes = (text: string) => new TextEncoder().encode(text);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 200 }, (_, i) => i % 256)]);
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

type Files = Record<string, { presigned_url: string; mime_type?: string }>;
const filesOf = (e: Example) => ((e as unknown as { attachments?: Files }).attachments ?? {}) as Files;

/** A link's bytes, fetched as evaluate()'s target would: plain fetch, no key. */
async function download(url: string): Promise<{ status: number; type: string | null; body: Uint8Array }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get("content-type"), body: new Uint8Array(await res.arrayBuffer()) };
}

describeBackends("example attachments through the langsmith SDK", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(
    backend,
    (s) => {
      server = s;
      client = s.client();
    },
    { maxAttachmentBytes: LIMIT },
  );
  const pool = () => server.handle.facility.pool;
  const blobCount = async () => Number((await pool().query("SELECT count(*) AS n FROM tracing_example_blobs")).rows[0].n);

  let datasetId: string;
  let exampleId: string;
  let createdVersion: string;
  beforeAll(async () => {
    datasetId = (await client.createDataset(`att-${randomUUID().slice(0, 8)}`)).id;
  });

  describe("upload and read back", () => {
    it("createExamples with attachments: absolute signed links whose bytes plain fetch reads without a key", async () => {
      exampleId = randomUUID();
      const [created] = await client.createExamples([
        {
          id: exampleId,
          dataset_id: datasetId,
          inputs: { q: "what is in the picture?" },
          outputs: { a: "a cup" },
          attachments: { picture: ["image/png", PNG], notes: ["text/plain", bytes("first notes")], extra: { mimeType: "application/json", data: bytes('{"k":1}') } },
        },
      ]);
      createdVersion = created!.modified_at!;
      const files = filesOf(created!);
      expect(Object.keys(files).sort()).toEqual(["extra", "notes", "picture"]);
      expect(files.picture!.mime_type).toBe("image/png");
      for (const f of Object.values(files)) expect(f.presigned_url.startsWith(`${server.url}/public/example-attachments/`)).toBe(true);

      const pic = await download(files.picture!.presigned_url);
      expect(pic).toMatchObject({ status: 200, type: "image/png" });
      expect(Buffer.from(pic.body).equals(Buffer.from(PNG))).toBe(true);
      expect(new TextDecoder().decode((await download(files.notes!.presigned_url)).body)).toBe("first notes");
      expect(JSON.parse(new TextDecoder().decode((await download(files.extra!.presigned_url)).body))).toEqual({ k: 1 });

      // the same through listExamples({includeAttachments}) and readExample
      const [listed] = await all(client.listExamples({ datasetId, exampleIds: [exampleId], includeAttachments: true }));
      expect(Object.keys(filesOf(listed!)).sort()).toEqual(["extra", "notes", "picture"]);
      const read = await client.readExample(exampleId);
      expect(Buffer.from((await download(filesOf(read).picture!.presigned_url)).body).equals(Buffer.from(PNG))).toBe(true);
    });

    it("the link, not a key, is the credential: without its signature the file is refused", async () => {
      const url = new URL(filesOf(await client.readExample(exampleId)).picture!.presigned_url);
      const bare = await fetch(`${url.origin}${url.pathname}`);
      expect(bare.status).toBe(422);
      expect(await bare.json()).toMatchObject({ detail: expect.any(Array) });
    });

    it("identical bytes are stored once (content-addressed), and examples without files say null", async () => {
      const before = await blobCount();
      const [twin, plain] = await client.createExamples([
        { dataset_id: datasetId, inputs: { q: "twin" }, attachments: { same_picture: ["image/png", PNG] } },
        { dataset_id: datasetId, inputs: { q: "no files" } },
      ]);
      expect(await blobCount()).toBe(before);
      expect(new URL(filesOf(twin!).same_picture!.presigned_url).pathname.endsWith(`/${sha(PNG)}`)).toBe(true);
      expect(filesOf(plain!)).toEqual({});
      const raw = await server.api(`/examples/${plain!.id}`);
      expect(raw.body.attachment_urls).toBeNull();
    });

    it("the 0.3.x SDK uploads files the same way and can use the links as they are", async () => {
      const old = new Client03({ apiUrl: server.url, apiKey: server.apiKey });
      const id = randomUUID();
      await old.uploadExamplesMultipart(datasetId, [{ id, inputs: { q: "old sdk" }, attachments: { doc: ["text/plain", bytes("from 0.3")] } }]);
      const read = await old.readExample(id);
      const doc = (read as unknown as { attachments: Files }).attachments.doc!;
      expect(new TextDecoder().decode((await download(doc.presigned_url)).body)).toBe("from 0.3");
    });
  });

  it("use_source_run_attachments copies a traced run's files into the example", async () => {
    const runId = randomUUID();
    const form = new FormData();
    const now = new Date().toISOString();
    form.append(`post.${runId}`, new Blob([JSON.stringify({ id: runId, trace_id: runId, name: "shot", run_type: "chain", start_time: now, end_time: now, inputs: { q: 1 }, outputs: { a: 2 }, session_name: "att-runs" })], { type: "application/json" }));
    form.append(`attachment.${runId}.screenshot`, new Blob([PNG], { type: "image/png" }));
    const res = await fetch(`${server.url}/runs/multipart`, { method: "POST", body: form, headers: server.apiKey ? { "x-api-key": server.apiKey } : {} });
    expect(res.status).toBe(202);
    const key = server.apiKey ? { "x-api-key": server.apiKey } : undefined;
    await eventually(async () => (await fetch(`${server.url}/runs/${runId}/attachments/screenshot`, { headers: key })).status === 200 || undefined);

    const example = await client.createExample({ q: "from a run" }, { a: "x" }, { datasetId, sourceRunId: runId, useSourceRunAttachments: ["screenshot"] });
    const shot = filesOf(example).screenshot!;
    expect(shot.mime_type).toBe("image/png");
    expect(Buffer.from((await download(shot.presigned_url)).body).equals(Buffer.from(PNG))).toBe(true);
    // a file the run does not have: 404, nothing created
    const id = randomUUID();
    await expect(client.createExample({ q: "missing" }, {}, { datasetId, exampleId: id, sourceRunId: runId, useSourceRunAttachments: ["nope"] })).rejects.toThrow(/404/);
    expect((await server.api(`/examples/${id}`)).status).toBe(404);
  });

  describe("updates and versions", () => {
    it("attachments_operations rename and retain, new uploads are added, the rest dropped; as_of keeps the old files", async () => {
      await client.updateExamplesMultipart(datasetId, [
        {
          id: exampleId,
          attachments: { summary: ["text/plain", bytes("new summary")] },
          attachments_operations: { rename: { picture: "photo" }, retain: ["notes"] },
        },
      ]);
      const now = await client.readExample(exampleId);
      const files = filesOf(now);
      expect(Object.keys(files).sort()).toEqual(["notes", "photo", "summary"]);
      expect(Buffer.from((await download(files.photo!.presigned_url)).body).equals(Buffer.from(PNG))).toBe(true);
      expect(new TextDecoder().decode((await download(files.summary!.presigned_url)).body)).toBe("new summary");

      // the version before the update still has picture and extra, with their bytes
      const [old] = await all(client.listExamples({ datasetId, exampleIds: [exampleId], asOf: createdVersion, includeAttachments: true }));
      const oldFiles = filesOf(old!);
      expect(Object.keys(oldFiles).sort()).toEqual(["extra", "notes", "picture"]);
      expect(Buffer.from((await download(oldFiles.picture!.presigned_url)).body).equals(Buffer.from(PNG))).toBe(true);
      const oldOne = await server.api(`/examples/${exampleId}?as_of=${encodeURIComponent(createdVersion)}`);
      expect(Object.keys(oldOne.body.attachment_urls).sort()).toEqual(["attachment.extra", "attachment.notes", "attachment.picture"]);
    });

    it("a change without files or operations keeps the files; naming a file the example lacks is a 422 that changes nothing", async () => {
      await client.updateExample({ id: exampleId, metadata: { reviewed: true } });
      expect(Object.keys(filesOf(await client.readExample(exampleId))).sort()).toEqual(["notes", "photo", "summary"]);

      await expect(client.updateExamplesMultipart(datasetId, [{ id: exampleId, attachments_operations: { rename: {}, retain: ["nope"] } }])).rejects.toThrow(/422/);
      expect(Object.keys(filesOf(await client.readExample(exampleId))).sort()).toEqual(["notes", "photo", "summary"]);

      // retain nothing: every file dropped
      await client.updateExamplesMultipart(datasetId, [{ id: exampleId, attachments_operations: { rename: {}, retain: [] } }]);
      expect(filesOf(await client.readExample(exampleId))).toEqual({});
    });

    it("hard-deleting the only examples that used some bytes removes those bytes", async () => {
      const unique = bytes(`only here ${randomUUID()}`);
      const [e] = await client.createExamples([{ dataset_id: datasetId, inputs: { q: "doomed" }, attachments: { f: ["text/plain", unique] } }]);
      const stored = async () => Number((await pool().query("SELECT count(*) AS n FROM tracing_example_blobs WHERE sha256 = $1", [sha(unique)])).rows[0].n);
      expect(await stored()).toBe(1);
      await client.deleteExamples([e!.id], { hardDelete: true });
      expect(await stored()).toBe(0);
    });
  });

  describe("evaluate()", () => {
    it("passes the files to a target that reads them through their links", async () => {
      vi.spyOn(console, "log").mockImplementation(() => undefined);
      const name = `att-eval-${randomUUID().slice(0, 8)}`;
      const ds = await client.createDataset(name);
      await client.createExamples([
        { dataset_id: ds.id, inputs: { task: "count" }, outputs: { size: 5 }, attachments: { doc: ["text/plain", bytes("hello")] } },
        { dataset_id: ds.id, inputs: { task: "count" }, outputs: { size: PNG.length }, attachments: { doc: ["image/png", PNG] } },
      ]);
      const seen: string[] = [];
      // the SDK calls a two-argument target with (inputs, {attachments}) when includeAttachments is set
      const target = async (_inputs: Record<string, unknown>, config?: unknown) => {
        const { attachments } = config as { attachments: Files };
        const res = await fetch(attachments.doc!.presigned_url);
        seen.push(attachments.doc!.mime_type ?? "");
        return { size: (await res.arrayBuffer()).byteLength, status: res.status };
      };
      const right = ({ outputs, referenceOutputs }: { outputs?: Record<string, unknown>; referenceOutputs?: Record<string, unknown> }) => ({ key: "right_size", score: outputs?.size === referenceOutputs?.size });
      const results = await evaluate(target, { data: name, evaluators: [right], client, includeAttachments: true, experimentPrefix: "files" });
      expect(seen.sort()).toEqual(["image/png", "text/plain"]);
      expect(results.results).toHaveLength(2);
      for (const r of results.results) {
        expect(r.run.outputs).toMatchObject({ status: 200 });
        expect(r.evaluationResults.results[0]).toMatchObject({ key: "right_size", score: true });
      }
    });
  });

  describe("refused", () => {
    let link: URL;
    beforeAll(async () => {
      const [e] = await client.createExamples([{ dataset_id: datasetId, inputs: { q: "guarded" }, attachments: { secret: ["text/plain", bytes("tenant A only")] } }]);
      link = new URL(filesOf(e!).secret!.presigned_url);
    });
    const variant = (change: (p: URLSearchParams) => void) => {
      const u = new URL(link);
      change(u.searchParams);
      return u.toString();
    };
    const refused = async (url: string, status: number, detail: RegExp) => {
      const res = await fetch(url);
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ detail: expect.stringMatching(detail) });
    };

    it("a tampered signature, expiry, type or tenant: 403", async () => {
      const sig = link.searchParams.get("signature")!;
      await refused(variant((p) => p.set("signature", `${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`)), 403, /not valid/);
      await refused(variant((p) => p.set("expires", String(Number(p.get("expires")) + 86_400 * 365))), 403, /not valid/);
      await refused(variant((p) => p.set("type", "text/html")), 403, /not valid/);
      await refused(variant((p) => p.set("tenant", randomUUID())), 403, /not valid/);
      // the genuine link still works
      expect(new TextDecoder().decode((await download(link.toString())).body)).toBe("tenant A only");
    });

    it("an expired link: 403, however genuine its signature", async () => {
      const { rows } = await pool().query("SELECT secret FROM tracing_signing_keys");
      const key: Buffer = rows[0].secret;
      const tenant = link.searchParams.get("tenant")!;
      const blob = link.pathname.split("/").pop()!;
      const expired = `${link.origin}${link.pathname}?${signedQuery(key, { tenant, sha256: blob, mime_type: "text/plain", expires: Math.floor(Date.now() / 1000) - 1 })}`;
      await refused(expired, 403, /expired/);
    });

    it("another tenant: no access to the example, and a genuine link of its own cannot reach this tenant's bytes", async () => {
      const tenant = await server.handle.facility.auth.createTenant(`other-${randomUUID().slice(0, 6)}`);
      const { key } = await server.handle.facility.auth.createKey([tenant.id], "other");
      const res = await fetch(`${server.url}/examples?dataset=${datasetId}`, { headers: { "x-api-key": key } });
      expect(res.status).toBe(404);
      // even signed with the server's key for the other tenant, the blob is not the other tenant's
      const { rows } = await pool().query("SELECT secret FROM tracing_signing_keys");
      const blob = link.pathname.split("/").pop()!;
      const forOther = `${link.origin}${link.pathname}?${signedQuery(rows[0].secret, { tenant: tenant.id, sha256: blob, mime_type: "text/plain", expires: Math.floor(Date.now() / 1000) + 600 })}`;
      await refused(forOther, 404, /no longer exists/);
    });

    /** A multipart upload by hand: one example with one file part of the given content type. */
    const rawUpload = async (type: string, data: Uint8Array) => {
      const id = randomUUID();
      const form = new FormData();
      form.append(id, new Blob([JSON.stringify({})], { type: "application/json" }));
      form.append(`${id}.inputs`, new Blob([JSON.stringify({ q: "raw" })], { type: "application/json" }));
      form.append(`${id}.attachment.file`, new Blob([data], { type }));
      const res = await fetch(`${server.url}/v1/platform/datasets/${datasetId}/examples`, { method: "POST", body: form, headers: server.apiKey ? { "x-api-key": server.apiKey } : {} });
      return { id, status: res.status, body: await res.json() };
    };
    const exists = async (id: string) => (await server.api(`/examples/${id}`)).status === 200;

    it("a declared length above the limit: 413; one that does not match the bytes: 422; nothing stored", async () => {
      const huge = await rawUpload("image/png; length=99999999999999", bytes("tiny"));
      expect(huge).toMatchObject({ status: 413, body: { detail: expect.stringMatching(/declares 99999999999999 bytes; the limit is 65536/) } });
      expect(await exists(huge.id)).toBe(false);
      const lying = await rawUpload("image/png; length=10", bytes("tiny"));
      expect(lying).toMatchObject({ status: 422, body: { detail: [{ loc: ["body", `${lying.id}.attachment.file`], msg: expect.stringMatching(/declared length=10 but the part has 4 bytes/) }] } });
      expect(await exists(lying.id)).toBe(false);
      const untyped = await rawUpload("not-a-type", bytes("tiny"));
      expect(untyped).toMatchObject({ status: 422, body: { detail: [{ msg: expect.stringMatching(/needs a content type/) }] } });
    });

    it("a file above the limit through the SDK: 413, and the example is not created", async () => {
      const id = randomUUID();
      await expect(client.createExamples([{ id, dataset_id: datasetId, inputs: { q: "big" }, attachments: { big: ["application/octet-stream", new Uint8Array(LIMIT + 1)] } }])).rejects.toThrow(/413/);
      expect(await exists(id)).toBe(false);
    });
  });
});
