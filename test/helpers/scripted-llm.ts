/**
 * A scripted LLM on loopback for whole projects: it speaks the OpenAI chat completions API
 * (streamed and not) and the Anthropic messages API, turns each request into one neutral shape
 * (system text, messages, tool names, the structured-output schema asked for), and answers what a
 * `brain` function decides: text, tool calls, or a JSON object for structured output. Projects
 * reach it with their own model code (`initChatModel`, `ChatOpenAI`, `ChatAnthropic`) through
 * OPENAI_BASE_URL / ANTHROPIC_BASE_URL, so no request leaves the machine. Given an `embed` function it
 * also answers OpenAI's embeddings API (`store.index` with `"openai:<model>"` in a project's langgraph.json).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatTurn {
  role: "user" | "assistant" | "tool";
  text: string;
  toolCalls?: { name: string; args: Record<string, unknown> }[];
  /** For `tool` turns: the tool's name when the API says it (OpenAI does not). */
  toolName?: string;
}

export interface ChatRequest {
  api: "openai" | "anthropic";
  model: string;
  system: string;
  turns: ChatTurn[];
  /** Names of the tools bound to the model. */
  tools: string[];
  /** The JSON schema of a structured-output request (OpenAI `response_format: json_schema`). */
  schema?: { name: string; properties: string[] };
}

export type ChatReply = { text: string } | { toolCalls: { name: string; args: Record<string, unknown> }[] } | { json: Record<string, unknown> };

export interface ScriptedLlm {
  /** Base URL for OPENAI_BASE_URL (ends in /v1). */
  openaiUrl: string;
  /** Base URL for ANTHROPIC_BASE_URL. */
  anthropicUrl: string;
  requests: ChatRequest[];
  /** Each embeddings request: the model asked for and the texts. */
  embeddings: { model: string; input: string[] }[];
  close(): Promise<void>;
}

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: any) => (typeof p === "string" ? p : p?.type === "text" ? p.text : p?.type === "tool_result" ? textOf(p.content) : "")).join("");
  return content == null ? "" : JSON.stringify(content);
};

function fromOpenAi(body: any): ChatRequest {
  const system: string[] = [];
  const turns: ChatTurn[] = [];
  for (const m of body.messages ?? []) {
    if (m.role === "system" || m.role === "developer") system.push(textOf(m.content));
    else if (m.role === "tool") turns.push({ role: "tool", text: textOf(m.content) });
    else if (m.role === "assistant") {
      const toolCalls = (m.tool_calls ?? []).map((c: any) => ({ name: c.function.name, args: JSON.parse(c.function.arguments || "{}") }));
      turns.push({ role: "assistant", text: textOf(m.content), ...(toolCalls.length ? { toolCalls } : {}) });
    } else turns.push({ role: "user", text: textOf(m.content) });
  }
  const rf = body.response_format;
  const schema = rf?.type === "json_schema" ? { name: String(rf.json_schema?.name ?? ""), properties: Object.keys(rf.json_schema?.schema?.properties ?? {}) } : undefined;
  return { api: "openai", model: String(body.model), system: system.join("\n"), turns, tools: (body.tools ?? []).map((t: any) => t.function?.name), ...(schema ? { schema } : {}) };
}

function fromAnthropic(body: any): ChatRequest {
  const turns: ChatTurn[] = [];
  for (const m of body.messages ?? []) {
    const blocks: any[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "assistant") {
      const toolCalls = blocks.filter((b) => b.type === "tool_use").map((b) => ({ name: b.name, args: b.input ?? {} }));
      turns.push({ role: "assistant", text: textOf(blocks.filter((b) => b.type === "text")), ...(toolCalls.length ? { toolCalls } : {}) });
      continue;
    }
    for (const b of blocks.filter((x) => x.type === "tool_result")) turns.push({ role: "tool", text: textOf(b.content) });
    const text = textOf(blocks.filter((b) => b.type === "text"));
    if (text) turns.push({ role: "user", text });
  }
  return { api: "anthropic", model: String(body.model), system: textOf(body.system), turns, tools: (body.tools ?? []).map((t: any) => t.name) };
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_${++ids}`;

function openAiMessage(reply: ChatReply) {
  if ("toolCalls" in reply) {
    const tool_calls = reply.toolCalls.map((c) => ({ id: nextId("call"), type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
    return { message: { role: "assistant", content: null, tool_calls }, finish: "tool_calls" };
  }
  const content = "json" in reply ? JSON.stringify(reply.json) : reply.text;
  return { message: { role: "assistant", content }, finish: "stop" };
}

function answerOpenAi(res: ServerResponse, body: any, reply: ChatReply): void {
  const { message, finish } = openAiMessage(reply);
  const base = { id: nextId("chatcmpl"), created: 1763718342, model: body.model };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  // one chunk with the whole message: enough for the SDK to assemble it, and for "messages" streaming
  const tool_calls = (message as any).tool_calls?.map((c: any, index: number) => ({ index, ...c }));
  const delta = { role: "assistant", content: message.content ?? "", ...(tool_calls ? { tool_calls } : {}) };
  const chunk = (choices: unknown[], extra = {}) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(chunk([{ index: 0, delta, finish_reason: null }]));
  res.write(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
  res.write(chunk([], { usage }));
  res.end("data: [DONE]\n\n");
}

function answerAnthropic(res: ServerResponse, body: any, reply: ChatReply): void {
  const content =
    "toolCalls" in reply
      ? reply.toolCalls.map((c) => ({ type: "tool_use", id: nextId("toolu"), name: c.name, input: c.args }))
      : [{ type: "text", text: "json" in reply ? JSON.stringify(reply.json) : reply.text }];
  const message = { id: nextId("msg"), type: "message", role: "assistant", model: body.model, content, stop_reason: "toolCalls" in reply ? "tool_use" : "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(message));
    return;
  }
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(event("message_start", { message: { ...message, content: [], stop_reason: null } }));
  content.forEach((block: any, index) => {
    if (block.type === "text") {
      res.write(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      res.write(event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } }));
    } else {
      res.write(event("content_block_start", { index, content_block: { ...block, input: {} } }));
      res.write(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } }));
    }
    res.write(event("content_block_stop", { index }));
  });
  res.write(event("message_delta", { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 5 } }));
  res.end(event("message_stop", {}));
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
}

function answerEmbeddings(res: ServerResponse, body: any, embed: (text: string) => number[]): void {
  const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
  // the OpenAI SDK asks for base64 (little-endian float32) unless told otherwise
  const encode = (v: number[]) => (body.encoding_format === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v);
  const data = input.map((text, index) => ({ object: "embedding", index, embedding: encode(embed(text)) }));
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", model: body.model, data, usage: { prompt_tokens: 1, total_tokens: 1 } }));
}

export async function startScriptedLlm(brain: (req: ChatRequest) => ChatReply, embed?: (text: string) => number[]): Promise<ScriptedLlm> {
  const requests: ChatRequest[] = [];
  const embeddings: ScriptedLlm["embeddings"] = [];
  const server: Server = createServer(async (req, res) => {
    try {
      const body = await readJson(req);
      const url = req.url ?? "";
      if (embed && url.endsWith("/embeddings")) {
        embeddings.push({ model: String(body.model), input: Array.isArray(body.input) ? body.input : [body.input] });
        answerEmbeddings(res, body, embed);
        return;
      }
      const api = url.endsWith("/chat/completions") ? "openai" : url.endsWith("/messages") ? "anthropic" : undefined;
      if (!api) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `the scripted LLM has no ${url}` } }));
        return;
      }
      const request = api === "openai" ? fromOpenAi(body) : fromAnthropic(body);
      requests.push(request);
      const reply = brain(request);
      if (api === "openai") answerOpenAi(res, body, reply);
      else answerAnthropic(res, body, reply);
    } catch (err) {
      // a brain that cannot answer is a test bug: say so to the SDK (400s are not retried)
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { type: "invalid_request_error", message: String((err as Error).stack ?? err) } }));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    anthropicUrl: `http://127.0.0.1:${port}`,
    requests,
    embeddings,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
