/**
 * The streaming benchmark's graph: one node calling a fake chat model that streams a fixed number
 * of tokens (BENCH_TOKENS, default 1,000) as fast as the event loop lets it — no network, so the
 * figures measure Berth's streaming path, not a provider.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";

export const TOKENS = Number(process.env.BENCH_TOKENS ?? 1000);

class TokenModel extends BaseChatModel {
  _llmType(): string {
    return "bench-tokens";
  }
  async _generate(): Promise<ChatResult> {
    const text = Array.from({ length: TOKENS }, (_, i) => ` t${i}`).join("");
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
  override async *_streamResponseChunks(_m: unknown, _o: unknown, runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    for (let i = 0; i < TOKENS; i++) {
      const word = ` t${i}`;
      yield new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ content: word }) });
      await runManager?.handleLLMNewToken(word);
    }
  }
}

const model = new TokenModel({});
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge("__start__", "agent")
  .compile();
