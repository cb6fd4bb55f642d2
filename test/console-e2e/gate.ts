/**
 * A run the test decides the end of: the `gate` graph (added to the example agents of the Studio
 * e2e) writes "started: <text>" after the user's message, then its `gate` node asks this HTTP
 * server for `/<text>` and answers "passed: <text>" when the response comes. The server holds
 * each request until the test opens that key, so a run stays busy (queued runs wait behind it, a
 * cancel lands mid-node) with no sleeps anywhere. The node passes the run's abort signal to fetch,
 * so a cancelled run stops at once.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Gate {
  url: string;
  /** Resolves when the graph asked for `key` (the run is inside the gate node). */
  arrived(key: string): Promise<void>;
  /** Lets `key` through now and from now on. */
  open(key: string): void;
  close(): Promise<void>;
}

export async function startGate(): Promise<Gate> {
  const opened = new Set<string>();
  const held = new Map<string, ServerResponse[]>();
  const arrivals = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const arrival = (key: string) => {
    let a = arrivals.get(key);
    if (!a) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      arrivals.set(key, (a = { promise, resolve }));
    }
    return a;
  };
  const server = createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? "/").slice(1));
    arrival(key).resolve();
    if (opened.has(key)) res.end("open");
    else held.set(key, [...(held.get(key) ?? []), res]);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived: (key) => arrival(key).promise,
    open(key) {
      opened.add(key);
      for (const res of held.get(key) ?? []) res.end("open");
      held.delete(key);
    },
    async close() {
      for (const list of held.values()) for (const res of list) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * The graph's source, with the gate's URL in it. Its config type gives the assistant form its
 * fields (read from the TypeScript types: a string, an enum and a number).
 */
export function gateGraphSource(gateUrl: string): string {
  return `import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, MessagesAnnotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";

const Config = Annotation.Root({
  /** Said before each answer. */
  greeting: Annotation<string>,
  tone: Annotation<"plain" | "cheerful">,
  max_words: Annotation<number>,
});

const lastHuman = (messages: BaseMessage[]) => [...messages].reverse().find((m) => m.getType() === "human")?.text ?? "";

export const graph = new StateGraph(MessagesAnnotation, Config)
  .addNode("note", (state) => ({ messages: [new AIMessage("started: " + lastHuman(state.messages))] }))
  .addNode("gate", async (state, config: LangGraphRunnableConfig) => {
    const key = lastHuman(state.messages);
    const res = await fetch(${JSON.stringify(gateUrl)} + "/" + encodeURIComponent(key), { signal: config.signal });
    await res.text();
    return { messages: [new AIMessage("passed: " + key)] };
  })
  .addEdge("__start__", "note")
  .addEdge("note", "gate")
  .compile();
`;
}
