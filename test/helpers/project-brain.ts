/**
 * What the scripted LLM answers the project fixtures under test/fixtures/projects/. Each shape is
 * recognised by what its requests carry (tool names, the structured-output schema, prompt
 * markers), so one provider serves every project, whichever API (OpenAI, Anthropic) it speaks.
 */
import type { ChatReply, ChatRequest, ChatTurn } from "./scripted-llm.js";

const lastUser = (r: ChatRequest) => [...r.turns].reverse().find((t) => t.role === "user")?.text ?? "";
const lastTurn = (r: ChatRequest): ChatTurn | undefined => r.turns.at(-1);
const between = (text: string, open: string, close: string) => text.split(open)[1]?.split(close)[0]?.trim() ?? "";

/** ReAct agent: search for each part of "A and B" (parallel tool calls), then answer from the results. */
function react(r: ChatRequest): ChatReply {
  if (lastTurn(r)?.role === "tool") {
    const results = r.turns.slice(r.turns.findLastIndex((t) => t.role === "assistant")).filter((t) => t.role === "tool");
    return { text: `From my searches: ${results.map((t) => t.text).join(" ")}` };
  }
  return { toolCalls: lastUser(r).split(/ and /).map((part) => ({ name: "search", args: { query: part.trim() } })) };
}

/** Memory agent: "remember that X" saves X; anything else is answered from the memories in the prompt. */
function memory(r: ChatRequest): ChatReply {
  if (lastTurn(r)?.role === "tool") return { text: "Saved." };
  const said = /^remember that (.+)$/i.exec(lastUser(r));
  if (said) return { toolCalls: [{ name: "upsertMemory", args: { content: said[1]!, context: "said in chat" } }] };
  // recalled by meaning (store.index): the graph lists them best first, and so does the answer
  const relevant = [...between(r.system, "<relevant_memories>", "</relevant_memories>").matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]);
  if (relevant.length) return { text: `Most relevant: ${relevant.join("; ")}` };
  const memories = [...between(r.system, "<memories>", "</memories>").matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]);
  return { text: memories.length ? `I remember: ${memories.sort().join("; ")}` : "I know nothing about you yet." };
}

/** Data enrichment: search, hand in a partial Info, and after the reflection's complaint a full one. */
function enrichment(r: ChatRequest): ChatReply {
  const tools = r.turns.filter((t) => t.role === "tool").map((t) => t.text);
  const page = tools.join(" ");
  const partial = { name: "Acme Rockets", headquarters: /based in (\w+)/.exec(page)?.[1] ?? "unknown" };
  if (tools.some((t) => t.startsWith("Unsatisfactory"))) return { toolCalls: [{ name: "Info", args: { ...partial, founded: Number(/founded in (\d{4})/.exec(page)?.[1]) } }] };
  if (tools.some((t) => t.includes("founded in"))) return { toolCalls: [{ name: "Info", args: partial }] };
  if (tools.length) return { toolCalls: [{ name: "scrapeWebsite", args: { url: JSON.parse(tools.at(-1)!)[0].url } }] };
  return { toolCalls: [{ name: "search", args: { query: "Acme Rockets" } }] };
}

function reflection(r: ChatRequest): ChatReply {
  const complained = r.turns.some((t) => t.role === "tool" && t.text.startsWith("Unsatisfactory"));
  return complained
    ? { json: { reason: ["has the founding year", "has the headquarters", "names the company"], is_satisfactory: true } }
    : { json: { reason: ["the founding year is missing"], is_satisfactory: false, improvement_instructions: "find the year Acme Rockets was founded" } };
}

/** Generative UI stockbroker: look up the ticker named in capitals, then say the card shows it. */
function stockbroker(r: ChatRequest): ChatReply {
  if (lastTurn(r)?.role === "tool") return { text: `Here is the price card. ${lastTurn(r)!.text}` };
  return { toolCalls: [{ name: "stock-price", args: { ticker: /\b[A-Z]{2,5}\b/.exec(lastUser(r))?.[0] ?? "?" } }] };
}

export function projectBrain(r: ChatRequest): ChatReply {
  const props = r.schema?.properties ?? [];
  if (props.includes("is_satisfactory")) return reflection(r);
  // retrieval agent: a follow-up question becomes a query of its own ("what about X?" -> "X")
  if (props.includes("query")) return { json: { query: lastUser(r).replace(/^what about\s+/i, "").replace(/\?$/, "") } };
  // support desk (http.app project): sort the ticket, then answer as that queue
  if (props.includes("category")) return { json: { category: /invoice|refund|charge/i.test(lastUser(r)) ? "billing" : "technical" } };
  if (r.system.includes("You are the support agent for")) return { text: `[${/for (\w+)/.exec(r.system)![1]}] We are on it: ${lastUser(r)}` };
  if (r.system.includes("<retrieved_docs>")) {
    const docs = [...between(r.system, "<retrieved_docs>", "</retrieved_docs>").matchAll(/<document>(.*?)<\/document>/g)].map((m) => m[1]);
    return { text: docs.length ? `According to the documents: ${docs.join(" | ")}` : "The documents say nothing about it." };
  }
  if (r.tools.includes("Info")) return enrichment(r);
  if (r.tools.includes("upsertMemory")) return memory(r);
  if (r.tools.includes("search")) return react(r);
  if (r.tools.includes("stock-price")) return stockbroker(r);
  throw new Error(`no scripted answer for a request with tools [${r.tools}] and system "${r.system.slice(0, 80)}"`);
}
