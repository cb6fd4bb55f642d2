/**
 * The official LangGraph Postgres checkpointer, with one change: channel versions that cannot
 * collide across branches of a thread's history.
 *
 * The JS checkpointer inherits integer versions (1, 2, 3…) and stores channel values keyed by
 * (thread, namespace, channel, version) with ON CONFLICT DO NOTHING. A second branch of the same
 * thread — a fork from an older checkpoint, or the run after a rollback — produces the same
 * version numbers again and silently reads the first branch's values. Like the Python
 * checkpointer, we append a random suffix to the zero-padded counter, so versions still order
 * correctly as strings and never collide.
 */
import { randomBytes } from "node:crypto";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";

export class BerthPostgresSaver extends PostgresSaver {
  // Typed as number by the base class (BaseCheckpointSaver<number>); LangGraph treats versions as
  // opaque and compares strings with localeCompare, which orders zero-padded counters correctly.
  override getNextVersion(current: number | undefined): number {
    const raw = current as unknown as string | number | undefined;
    let n = 0;
    if (typeof raw === "number") n = raw;
    else if (typeof raw === "string") n = Number.parseInt(raw.split(".")[0]!, 10) || 0;
    return `${String(n + 1).padStart(32, "0")}.${randomBytes(8).toString("hex")}` as unknown as number;
  }
}
