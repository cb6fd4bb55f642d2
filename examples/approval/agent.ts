/**
 * Human in the loop: the agent drafts a reply, then stops with interrupt() until a person approves
 * or edits it. Resume with `command: {resume: "approve"}` or `{resume: {edit: "new text"}}`.
 */
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph, interrupt } from "@langchain/langgraph";

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("draft", async (state) => {
    const last = state.messages.at(-1);
    return { messages: [new AIMessage(`Draft answer to: ${last?.text ?? ""}`)] };
  })
  .addNode("review", async (state) => {
    const draft = state.messages.at(-1)!;
    const decision = interrupt<{ question: string; draft: string }, "approve" | { edit: string }>({
      question: "Send this answer?",
      draft: draft.text,
    });
    const text = decision === "approve" ? `Approved: ${draft.text}` : `Edited: ${decision.edit}`;
    return { messages: [new AIMessage(text)] };
  })
  .addEdge("__start__", "draft")
  .addEdge("draft", "review")
  .compile();
