/**
 * How runs look as A2A tasks (pure). One task is one turn: a run on the thread that is the A2A
 * context. This module maps run and thread states to task states, reads the agent's reply out of
 * the graph's `messages`, and builds v0.3 Task objects (the `kind`-tagged dialect).
 */
import type { RunStatus } from "../api/schemas.js";

export type TaskState =
  | "submitted"
  | "working"
  | "input-required"
  | "completed"
  | "canceled"
  | "failed"
  | "rejected"
  | "auth-required"
  | "unknown";

export const TERMINAL_TASK_STATES: readonly TaskState[] = ["completed", "canceled", "failed", "rejected"];

/**
 * The task state of a run. A graph that stopped at interrupt() ends its run successfully but leaves
 * the thread interrupted: the task waits for input. A run cancelled (interrupt action) is canceled.
 */
export function taskStateOf(runStatus: RunStatus, threadInterrupted: boolean): TaskState {
  switch (runStatus) {
    case "pending":
      return "submitted";
    case "running":
      return "working";
    case "success":
      return threadInterrupted ? "input-required" : "completed";
    case "error":
    case "timeout":
      return "failed";
    case "interrupted":
      return "canceled";
  }
}

export interface TextPart {
  kind: "text";
  text: string;
}

export interface A2AMessage {
  kind: "message";
  messageId: string;
  role: "user" | "agent";
  parts: ({ kind: string } & Record<string, unknown>)[];
  taskId?: string;
  contextId?: string;
  metadata?: Record<string, unknown>;
}

/** Text of a LangChain message's content: a string, or the text blocks of a content array. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (typeof block === "string" ? block : block?.type === "text" && typeof block.text === "string" ? block.text : ""))
      .join("");
  }
  return "";
}

/** A graph message (as the API serialises it: `{type, content, id}`) as an A2A message. */
export function toA2AMessage(message: { type?: string; content?: unknown; id?: string }, ids: { taskId: string; contextId: string }, fallbackId: string): A2AMessage {
  return {
    kind: "message",
    messageId: message.id ?? fallbackId,
    role: message.type === "human" ? "user" : "agent",
    parts: [{ kind: "text", text: contentText(message.content) }],
    taskId: ids.taskId,
    contextId: ids.contextId,
  };
}

/** The agent's reply: the last AI message of the state, if the graph produced one. */
export function lastAgentReply(values: unknown): { type?: string; content?: unknown; id?: string } | undefined {
  const messages = (values as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { type?: string; content?: unknown; id?: string };
    if (m?.type === "ai" || m?.type === "AIMessageChunk") return m;
  }
  return undefined;
}

/** `historyLength`: absent → everything, 0 → none, n → the n most recent. */
export function limitHistory<T>(history: T[], historyLength: number | undefined): T[] {
  if (historyLength === undefined) return history;
  if (historyLength <= 0) return [];
  return history.slice(-historyLength);
}

export interface TaskView {
  taskId: string;
  contextId: string;
  state: TaskState;
  /** The thread's messages of this turn (the user's message first), as the API serialises them. */
  turn: { type?: string; content?: unknown; id?: string }[];
  /** Text for the status message when the task waits (interrupt) or failed. */
  statusText?: string;
  timestamp: string;
  historyLength?: number;
}

/** A v0.3 Task: status (with the reply as its message), the reply as an artifact, the history. */
export function buildTask(view: TaskView) {
  const ids = { taskId: view.taskId, contextId: view.contextId };
  const reply = view.state === "completed" ? lastAgentReply({ messages: view.turn }) : undefined;
  const replyMessage = reply ? toA2AMessage(reply, ids, `${view.taskId}-reply`) : undefined;
  const statusMessage =
    replyMessage ??
    (view.statusText
      ? { kind: "message" as const, messageId: `${view.taskId}-status`, role: "agent" as const, parts: [{ kind: "text", text: view.statusText }], ...ids }
      : undefined);
  const history = view.turn.map((m, i) => toA2AMessage(m, ids, `${view.taskId}-${i}`));
  return {
    kind: "task" as const,
    id: view.taskId,
    contextId: view.contextId,
    status: { state: view.state, timestamp: view.timestamp, ...(statusMessage ? { message: statusMessage } : {}) },
    ...(replyMessage ? { artifacts: [{ artifactId: `${view.taskId}-answer`, name: "Assistant Response", parts: replyMessage.parts }] } : {}),
    history: limitHistory(history, view.historyLength),
  };
}
