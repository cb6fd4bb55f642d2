/**
 * The shapes the real SDKs send: runs captured from the `langsmith` wrappers and `traceable`, and
 * from LangChain's tracer, with the providers faked through their clients' `fetch` (no network).
 */
import { describe, expect, it, vi } from "vitest";
import { Client } from "langsmith";
import { traceable } from "langsmith/traceable";
import { wrapAnthropic } from "langsmith/wrappers/anthropic";
import { wrapOpenAI } from "langsmith/wrappers/openai";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize.js";

type Run = { name?: string; run_type?: string; inputs?: unknown; outputs?: unknown; end_time?: unknown };

/** A LangSmith client that keeps runs in memory instead of sending them. */
class Capture extends Client {
  captured = new Map<string, Run>();
  constructor() {
    super({ apiUrl: "http://127.0.0.1:9", apiKey: "test", autoBatchTracing: false });
  }
  override async createRun(run: any) {
    this.captured.set(run.id, { ...this.captured.get(run.id), ...run });
  }
  override async updateRun(id: string, run: any) {
    this.captured.set(id, { ...this.captured.get(id), ...run });
  }
  /** The finished run named `name`, as JSON (what ingestion stores). */
  async finished(name: string): Promise<Run> {
    return vi.waitFor(() => {
      const run = [...this.captured.values()].find((r) => r.name === name && r.outputs !== undefined);
      if (!run) throw new Error(`no finished run ${name} yet`);
      return JSON.parse(JSON.stringify(run)) as Run;
    }, { timeout: 30_000 }); // vi.waitFor's default 1 s is tuned for an idle machine
  }
}

const replyWith = (body: unknown) => (async () => new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } })) as any;
const render = (run: Run) => normalizeLlmRun(run.inputs, run.outputs)!;

describe("runs as the SDKs send them", () => {
  it("wrapOpenAI chat completions: usage_metadata replaces usage", async () => {
    const client = new Capture();
    const openai = wrapOpenAI(
      new OpenAI({
        apiKey: "k",
        baseURL: "http://127.0.0.1:9/v1",
        fetch: replyWith({
          id: "c",
          object: "chat.completion",
          created: 1,
          model: "gpt-4o-mini",
          choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] } }],
          usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        }),
      }),
      { client, tracingEnabled: true },
    );
    await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "developer", content: "be brief" }, { role: "user", content: "weather?" }] });
    const r = render(await client.finished("ChatOpenAI"));
    expect(r.format).toBe("openai");
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(r.messages[2]!.content).toEqual([{ type: "tool_call", id: "call_1", name: "weather", args: { city: "Oslo" } }]);
    expect(r.messages[2]!.usage_metadata).toMatchObject({ input_tokens: 5, output_tokens: 2, total_tokens: 7 });
  });

  it("wrapOpenAI Responses API: instructions, string input, output items", async () => {
    const client = new Capture();
    const openai = wrapOpenAI(
      new OpenAI({
        apiKey: "k",
        baseURL: "http://127.0.0.1:9/v1",
        fetch: replyWith({
          id: "resp_1",
          object: "response",
          created_at: 1,
          status: "completed",
          model: "gpt-4.1",
          output: [
            { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "greet back" }] },
            { type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "hi", annotations: [] }] },
          ],
          usage: { input_tokens: 5, output_tokens: 1, total_tokens: 6, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
        }),
      }),
      { client, tracingEnabled: true },
    );
    await openai.responses.create({ model: "gpt-4.1", instructions: "be nice", input: "hello" });
    const r = render(await client.finished("ChatOpenAI"));
    expect(r.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "be nice" }] },
      { role: "user", content: [{ type: "text", text: "hello" }] },
      { role: "assistant", content: [{ type: "reasoning", text: "greet back" }, { type: "text", text: "hi" }], usage_metadata: expect.objectContaining({ total_tokens: 6 }) },
    ]);
  });

  it("wrapAnthropic: system moved into the messages, thinking and tool_use in the response", async () => {
    const client = new Capture();
    const anthropic = wrapAnthropic(
      new Anthropic({
        apiKey: "k",
        baseURL: "http://127.0.0.1:9",
        fetch: replyWith({
          id: "m",
          type: "message",
          role: "assistant",
          model: "claude",
          content: [
            { type: "thinking", thinking: "need a tool", signature: "sig" },
            { type: "tool_use", id: "tu_1", name: "zoom", input: { x: 2 } },
          ],
          stop_reason: "tool_use",
          usage: { input_tokens: 3, output_tokens: 1 },
        }),
      }),
      { client, tracingEnabled: true },
    );
    await anthropic.messages.create({ model: "claude", max_tokens: 10, system: "be nice", messages: [{ role: "user", content: "hi" }] });
    const r = render(await client.finished("ChatAnthropic"));
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(r.messages[2]!.content).toEqual([
      { type: "reasoning", text: "need a tool", extras: { signature: "sig" } },
      { type: "tool_call", id: "tu_1", name: "zoom", args: { x: 2 } },
    ]);
    expect(r.messages[2]!.usage_metadata).toMatchObject({ input_tokens: 3, output_tokens: 1 });
  });

  it("traceable: several arguments ({args}), one array argument ({input}), a non-object return value ({outputs})", async () => {
    const client = new Capture();
    const opts = { client, tracingEnabled: true, run_type: "llm" as const };
    await traceable(async (_messages: unknown, _temperature: number) => ({ role: "assistant", content: "x" }), { ...opts, name: "several" })([{ role: "user", content: "hi" }], 0);
    await traceable(async (_messages: unknown) => ["assistant", "y"], { ...opts, name: "array" })([{ role: "user", content: "hi" }]);
    const several = await client.finished("several");
    expect(several.inputs).toHaveProperty("args");
    expect(render(several).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const array = await client.finished("array");
    expect(array.inputs).toHaveProperty("input");
    expect(array.outputs).toHaveProperty("outputs");
    expect(render(array).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "y" }] },
    ]);
  });

  it("LangChain tracer: batch-nested constructor-form inputs, LLMResult outputs", async () => {
    const client = new Capture();
    const model = new FakeListChatModel({ responses: ["sunny"] });
    await model.invoke(
      [new SystemMessage("s"), new HumanMessage("weather?"), new AIMessage({ content: "", tool_calls: [{ id: "t1", name: "weather", args: {} }] }), new ToolMessage({ content: "sun", tool_call_id: "t1" })],
      { callbacks: [new LangChainTracer({ client, projectName: "p" })] },
    );
    const r = render(await client.finished("FakeListChatModel"));
    expect(r.format).toBe("langchain");
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(r.messages[4]!.content).toEqual([{ type: "text", text: "sunny" }]);
    expect(r.warnings).toEqual([]);
  });
});
