/**
 * A deterministic chat model for examples and tests: it answers "You said: <last user message>",
 * streaming the reply word by word, with no network and no API key.
 */
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";

function lastUserText(messages: BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.getType() === "human") return typeof m.content === "string" ? m.content : m.text;
  }
  return "";
}

export class EchoChatModel extends BaseChatModel {
  constructor(fields: BaseChatModelParams = {}) {
    super(fields);
  }

  _llmType(): string {
    return "echo";
  }

  reply(messages: BaseMessage[]): string {
    return `You said: ${lastUserText(messages)}`;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const text = this.reply(messages);
    const usage = { input_tokens: messages.length, output_tokens: text.split(" ").length, total_tokens: messages.length + text.split(" ").length };
    return { generations: [{ text, message: new AIMessage({ content: text, usage_metadata: usage }) }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const words = this.reply(messages).split(/(?= )/);
    for (const word of words) {
      const chunk = new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ content: word }) });
      yield chunk;
      await runManager?.handleLLMNewToken(word);
    }
  }
}
