/**
 * What the console e2e test shows: traces sent through the real `langsmith` SDK (so they take the
 * same ingest path as an application's), and a git repository of the bundled example agents for
 * the local runtime to deploy.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { Client, RunTree } from "langsmith";
import { ROOT } from "../helpers/browser.js";

/** A solid-colour RGB PNG (sky blue), so the screenshot shows where the image landed. */
function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

/** Sent inline (base64 data URL) as an image the user showed the model. */
export const PNG_BASE64 = solidPng(48, 32, [90, 160, 230]).toString("base64");

export const WEATHER = {
  system: "You are a weather assistant. Use the tools.",
  question: "What is the weather in Paris? Here is the sky right now:",
  toolName: "get_weather",
  toolCallId: "call_weather_1",
  toolArgs: { city: "Paris", unit: "celsius" },
  toolResult: "18 degrees and sunny",
  answer: "It is 18 degrees and sunny in Paris.",
  model: "gpt-4o-mini",
};

/** Each way a trace payload could try to run script in the console, as text the page must show as-is. */
export const INJECTION = {
  script: "<script>window.__pwned=1</script>",
  img: `<img src=x onerror="window.__pwned=1">`,
  link: "[x](javascript:window.__pwned=1)",
};
export const INJECTION_TEXT = `${INJECTION.script}${INJECTION.img} and ${INJECTION.link}`;

export interface SeededTraces {
  project: string;
  /** The weather trace: chain root → LLM call (messages, tool call + result, image, usage) → tool. */
  weather: { traceId: string; rootId: string; llmId: string; llmName: string; toolRunId: string };
  injection: { traceId: string; rootId: string; llmId: string; llmName: string };
}

export async function seedTraces(tracingUrl: string, apiKey: string, project: string): Promise<SeededTraces> {
  const client = new Client({ apiUrl: tracingUrl, apiKey, autoBatchTracing: true });
  const t0 = Date.now() - 60_000;

  // ---- the weather trace
  const root = new RunTree({
    name: "weather_agent",
    run_type: "chain",
    project_name: project,
    client,
    start_time: t0,
    inputs: { question: WEATHER.question },
    metadata: { thread_id: "e2e-thread-1" },
  });
  await root.postRun();
  const llmName = "ChatOpenAI";
  const llm = root.createChild({
    name: llmName,
    run_type: "llm",
    start_time: t0 + 100,
    inputs: {
      messages: [
        { role: "system", content: WEATHER.system },
        {
          role: "user",
          content: [
            { type: "text", text: WEATHER.question },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: WEATHER.toolCallId, type: "function", function: { name: WEATHER.toolName, arguments: JSON.stringify(WEATHER.toolArgs) } }],
        },
        { role: "tool", tool_call_id: WEATHER.toolCallId, content: WEATHER.toolResult },
      ],
    },
    metadata: { ls_provider: "openai", ls_model_name: WEATHER.model, ls_model_type: "chat" },
    extra: { invocation_params: { model: WEATHER.model, temperature: 0 } },
  });
  await llm.postRun();
  llm.addEvent({ name: "new_token", time: new Date(t0 + 400).toISOString() });
  await llm.end(
    {
      choices: [{ index: 0, message: { role: "assistant", content: WEATHER.answer }, finish_reason: "stop" }],
      model: WEATHER.model,
      usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 },
    },
    undefined,
    t0 + 1500,
  );
  await llm.patchRun();
  const tool = root.createChild({ name: WEATHER.toolName, run_type: "tool", start_time: t0 + 1600, inputs: WEATHER.toolArgs });
  await tool.postRun();
  await tool.end({ output: WEATHER.toolResult }, undefined, t0 + 1700);
  await tool.patchRun();
  await root.end({ answer: WEATHER.answer }, undefined, t0 + 1800);
  await root.patchRun();

  // ---- the script-injection trace: the payload in a chain's inputs, in a user message (text) and
  // in an assistant's Markdown answer
  const evil = new RunTree({
    name: "injection_agent",
    run_type: "chain",
    project_name: project,
    client,
    start_time: t0 + 5000,
    inputs: { question: INJECTION_TEXT },
  });
  await evil.postRun();
  const evilLlmName = "InjectedChat";
  const evilLlm = evil.createChild({
    name: evilLlmName,
    run_type: "llm",
    start_time: t0 + 5100,
    inputs: { messages: [{ role: "user", content: INJECTION_TEXT }] },
    metadata: { ls_provider: "openai", ls_model_name: WEATHER.model },
  });
  await evilLlm.postRun();
  await evilLlm.end(
    {
      choices: [{ index: 0, message: { role: "assistant", content: `Answer: ${INJECTION_TEXT}` }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    },
    undefined,
    t0 + 5200,
  );
  await evilLlm.patchRun();
  await evil.end({ answer: INJECTION_TEXT }, undefined, t0 + 5300);
  await evil.patchRun();

  await client.awaitPendingTraceBatches();
  return {
    project,
    weather: { traceId: root.trace_id, rootId: root.id, llmId: llm.id, llmName, toolRunId: tool.id },
    injection: { traceId: evil.trace_id, rootId: evil.id, llmId: evilLlm.id, llmName: evilLlmName },
  };
}

/**
 * A git repository (under `parent`, which must be inside this checkout so the graphs resolve
 * @langchain/langgraph from its node_modules) holding a copy of the bundled example agents.
 */
/**
 * `extraGraphs`: more graphs for a test, graph id → the TypeScript source of a module exporting
 * `graph`, written to examples/<id>/agent.ts and added to langgraph.json.
 */
export function createExampleRepo(parent: string, extraGraphs: Record<string, string> = {}): { url: string; configPath: string } {
  const dir = path.join(parent, "agents");
  mkdirSync(dir, { recursive: true });
  const skip = new Set([".berth", "node_modules"]);
  cpSync(path.join(ROOT, "examples"), path.join(dir, "examples"), { recursive: true, filter: (src) => !skip.has(path.basename(src)) });
  if (Object.keys(extraGraphs).length) {
    const configFile = path.join(dir, "examples", "langgraph.json");
    const config = JSON.parse(readFileSync(configFile, "utf8")) as { graphs: Record<string, unknown> };
    for (const [id, source] of Object.entries(extraGraphs)) {
      mkdirSync(path.join(dir, "examples", id), { recursive: true });
      writeFileSync(path.join(dir, "examples", id, "agent.ts"), source);
      config.graphs[id] = `./${id}/agent.ts:graph`;
    }
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  }
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "berth-e2e-agents", private: true, type: "module" })}\n`);
  const git = (...a: string[]) => execFileSync("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.com", ...a], { cwd: dir }).toString().trim();
  git("init", "--quiet", "--initial-branch=main");
  git("add", ".");
  git("commit", "--quiet", "-m", "example agents");
  return { url: `file://${dir}`, configPath: "examples/langgraph.json" };
}
