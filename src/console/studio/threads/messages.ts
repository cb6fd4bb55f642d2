/**
 * LangGraph `messages` values → the console's native messages (pure), through the tracing
 * normaliser's reader, so a thread's messages render exactly as a traced LLM call's do.
 */
import type { NativeMessage } from "../../api/types";
import { readList } from "../../../tracing/messages/message";

const cache = new WeakMap<unknown[], NativeMessage[] | null>();

/** Native messages when `value` is a list of messages in a known form; undefined otherwise. */
export function asMessages(value: unknown): NativeMessage[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  // the tree asks on every render; a state's lists are not mutated, so reading once is enough
  let hit = cache.get(value);
  if (hit === undefined) {
    hit = (readList(value)?.messages as NativeMessage[] | undefined) ?? null;
    cache.set(value, hit);
  }
  return hit ?? undefined;
}
