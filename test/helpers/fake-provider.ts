/**
 * A fake LLM provider on loopback, speaking enough of the OpenAI chat completions and Anthropic
 * messages APIs for the official SDKs (and the langsmith wrappers around them) to work against it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeProvider {
  url: string;
  requests: { path: string; body: any }[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
}

export const OPENAI_TOOL_RESPONSE = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1763718342,
  model: "gpt-4o-mini-2024-07-18",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: null, tool_calls: [{ id: "call_weather", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      finish_reason: "tool_calls",
    },
  ],
  usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, prompt_tokens_details: { cached_tokens: 5 } },
};

export const ANTHROPIC_RESPONSE = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [
    { type: "thinking", thinking: "The user greets me in French.", signature: "sig-1" },
    { type: "text", text: "Bonjour !" },
  ],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 30 },
};

export async function startFakeProvider(options: { chunkDelayMs?: number } = {}): Promise<FakeProvider> {
  const requests: FakeProvider["requests"] = [];
  const server: Server = createServer(async (req, res) => {
    const body = await readJson(req);
    requests.push({ path: req.url ?? "", body });
    if (req.url?.endsWith("/chat/completions")) {
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(OPENAI_TOOL_RESPONSE));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const base = { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1763718342, model: "gpt-4o-mini-2024-07-18" };
      const pieces = ["Hel", "lo", " there"];
      for (const [i, p] of pieces.entries()) {
        await new Promise((r) => setTimeout(r, options.chunkDelayMs ?? 30));
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: i === 0 ? { role: "assistant", content: p } : { content: p }, finish_reason: null }] })}\n\n`);
      }
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } })}\n\n`);
      res.end("data: [DONE]\n\n");
      return;
    }
    if (req.url?.endsWith("/messages")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(ANTHROPIC_RESPONSE));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
