/**
 * Placeholder of the Threads tab: the threads panel (list, state, history, time travel) is built
 * beside this page in src/console/studio/threads/ and replaces this file when merged; it takes the
 * same props.
 */
import type { Client } from "@langchain/langgraph-sdk";

export function ThreadsTab(_props: { client: Client; assistantId: string; graphId: string; onOpenTrace: (runId: string) => void }) {
  return <p className="empty">Threads are not available in this build yet.</p>;
}
