/**
 * A chat agent: `messages` state, one model call per turn. Offline by default (EchoChatModel);
 * set OPENAI_API_KEY or ANTHROPIC_API_KEY (or BERTH_CHAT_MODEL) for a real model — see model.ts.
 */
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { chatModel } from "./model.js";

const model = await chatModel();

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge("__start__", "agent")
  .compile();
