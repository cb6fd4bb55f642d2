/**
 * The chat model of the example agent. With no configuration it is the offline EchoChatModel, so
 * the example runs anywhere. With a provider key in the environment it is a real model:
 *
 *   OPENAI_API_KEY=…     → openai:gpt-4o-mini        (package @langchain/openai)
 *   ANTHROPIC_API_KEY=…  → anthropic:claude-3-5-haiku-latest  (package @langchain/anthropic)
 *   BERTH_CHAT_MODEL=openai:<model> | anthropic:<model> | echo   picks explicitly.
 *
 * Both provider packages are optional dependencies of Berth (`npm ci --omit=optional` drops them).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { EchoChatModel } from "./echo-model.js";

export type ModelSpec = { provider: "echo" } | { provider: "openai" | "anthropic"; model: string };

/** Which model the environment asks for (pure). */
export function modelSpecFrom(env: Record<string, string | undefined>): ModelSpec {
  const explicit = env.BERTH_CHAT_MODEL?.trim();
  if (explicit) {
    if (explicit === "echo") return { provider: "echo" };
    const [provider, ...rest] = explicit.split(":");
    const model = rest.join(":");
    if ((provider === "openai" || provider === "anthropic") && model) return { provider, model };
    throw new Error(`BERTH_CHAT_MODEL must be "echo", "openai:<model>" or "anthropic:<model>", got "${explicit}"`);
  }
  if (env.OPENAI_API_KEY) return { provider: "openai", model: "gpt-4o-mini" };
  if (env.ANTHROPIC_API_KEY) return { provider: "anthropic", model: "claude-3-5-haiku-latest" };
  return { provider: "echo" };
}

export async function chatModel(env: Record<string, string | undefined> = process.env): Promise<BaseChatModel> {
  const spec = modelSpecFrom(env);
  try {
    if (spec.provider === "openai") {
      const { ChatOpenAI } = await import("@langchain/openai");
      return new ChatOpenAI({ model: spec.model, apiKey: env.OPENAI_API_KEY });
    }
    if (spec.provider === "anthropic") {
      const { ChatAnthropic } = await import("@langchain/anthropic");
      return new ChatAnthropic({ model: spec.model, apiKey: env.ANTHROPIC_API_KEY });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") {
      throw new Error(`the ${spec.provider} model needs the package @langchain/${spec.provider}: npm install @langchain/${spec.provider}`);
    }
    throw err;
  }
  return new EchoChatModel();
}
