/**
 * The Studio part of the console benchmark (bench/console.ts): the bundled example agents deployed
 * on the benchmark's `berth dev` (local runtime, from a git repository), and the time from
 * pressing Send in the Run tab to the first token on screen, against the time the SDK in the page
 * handed that token's SSE event over (`studio:first-token-received` / `-shown` marks, RunTab.tsx):
 * the difference is what the console adds; and a thread of the chat example with 1,000 checkpoints
 * (written with update_state, a message every 10th) for the Threads tab's first render.
 */
import { Client } from "@langchain/langgraph-sdk";
import type { Browser } from "playwright-core";
import { DEFAULT_TENANT_ID } from "../src/shared/auth/service.js";
import { newContext } from "../test/helpers/browser.js";
import { createExampleRepo } from "../test/console-e2e/seed.js";

export async function deployExamples(url: string, apiKey: string, scratch: string, timeoutMs: number): Promise<{ id: string; chatAssistant: string }> {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${path}`, { method, headers: { "x-api-key": apiKey, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const list = await call<{ id: string; kind?: string }[]>("GET", "/v1/integrations/hosted_git/install");
  const local = list.find((i) => i.kind === "local") ?? list[0];
  if (!local) throw new Error("berth dev has no local integration");
  const repo = createExampleRepo(scratch);
  const d = await call<{ id: string; latest_revision_id: string }>("POST", "/v2/deployments", {
    name: "bench-studio",
    source: "hosted_git",
    source_config: { integration_id: local.id, repo_url: repo.url },
    source_revision_config: { repo_ref: "main", agent_config_path: repo.configPath },
    secrets: [],
  });
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await call<{ status: string; reason?: string }>("GET", `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}?wait=30`);
    if (r.status === "DEPLOYED") break;
    if (/FAILED/.test(r.status) || Date.now() > until) {
      const logs = await call<unknown>("GET", `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/logs?type=deploy`).catch((err: Error) => err.message);
      throw new Error(`the example deployment is ${r.status}: ${r.reason ?? ""}\n${JSON.stringify(logs).slice(-3000)}`);
    }
  }
  const chat = await call<{ assistant_id: string }[]>("POST", `/v2/deployments/${d.id}/agent/assistants/search`, { graph_id: "chat" });
  return { id: d.id, chatAssistant: chat[0]!.assistant_id };
}

export interface FirstToken {
  /** Send pressed → the SDK in the page yielded the first `messages` event (ms). */
  received: number;
  /** Send pressed → that token on screen (ms). */
  shown: number;
}

/** One chat turn in a fresh context: Send → first token received and shown. */
export async function firstTokenOnce(browser: Browser, studioUrl: string, apiKey: string, timeoutMs: number): Promise<FirstToken> {
  const context = await newContext(browser, { viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript((s: unknown) => (globalThis as any).sessionStorage.setItem("berth.session", JSON.stringify(s)), { apiKey, tenantId: DEFAULT_TENANT_ID });
    const page = await context.newPage();
    await page.goto(studioUrl, { waitUntil: "commit" });
    const input = page.getByRole("textbox", { name: "Message" });
    await input.waitFor({ state: "visible", timeout: timeoutMs });
    await input.fill("benchmark says hello");
    const sent = await page.evaluate(() => {
      const w = globalThis as any;
      const t = w.performance.now();
      w.document.querySelector('form.studio-input button[type="submit"]').click();
      return t;
    });
    await page.waitForFunction(() => (globalThis as any).performance.getEntriesByName("studio:first-token-shown").length > 0, undefined, { timeout: timeoutMs, polling: 20 });
    const [received, shown] = await page.evaluate(() => ["received", "shown"].map((k) => (globalThis as any).performance.getEntriesByName(`studio:first-token-${k}`)[0].startTime as number));
    return { received: received! - sent, shown: shown! - sent };
  } finally {
    await context.close();
  }
}

/**
 * A thread of the chat graph with `n` checkpoints, written with update_state (as node `agent`)
 * through the control plane's proxy with the SDK: one message (alternating human and AI turns)
 * every 10th, an empty messages update otherwise. Not a message each: every write stores the whole
 * list again, so 1,000 messages took ~2 s per update on a loaded 2-core machine (half an hour).
 */
export async function seedCheckpoints(url: string, apiKey: string, deploymentId: string, n: number): Promise<{ threadId: string; messages: number }> {
  const client = new Client({ apiUrl: `${url}/v2/deployments/${deploymentId}/agent`, apiKey });
  const thread = await client.threads.create({ graphId: "chat", metadata: { graph_id: "chat", bench: "checkpoints" } });
  let messages = 0;
  for (let i = 0; i < n; i++) {
    const add = i % 10 === 0 ? [{ type: messages % 2 ? "ai" : "human", content: `turn ${messages++}: ${"words ".repeat(8 + (i % 20))}` }] : [];
    await client.threads.updateState(thread.thread_id, { values: { messages: add }, asNode: "agent" });
  }
  const history = await client.threads.getHistory(thread.thread_id, { limit: 1 });
  const step = (history[0]?.metadata as { step?: number } | undefined)?.step;
  if (step === undefined || step < n - 2) throw new Error(`the seeded thread's newest checkpoint is step ${step}, not ~${n}`);
  return { threadId: thread.thread_id, messages };
}
