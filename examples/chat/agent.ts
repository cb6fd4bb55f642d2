/**
 * A chat agent: `messages` state, one model call per turn. It uses the offline EchoChatModel, so it
 * runs anywhere; swap in any LangChain chat model (ChatOpenAI, ChatAnthropic…) for a real one.
 */
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { EchoChatModel } from "./echo-model.js";

const model = new EchoChatModel();

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge("__start__", "agent")
  .compile();
