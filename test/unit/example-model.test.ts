import { describe, expect, it } from "vitest";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { EchoChatModel } from "../../examples/chat/echo-model.js";
import { chatModel, modelSpecFrom } from "../../examples/chat/model.js";

describe("the example chat agent's model", () => {
  it("is the offline echo model without any key", async () => {
    expect(modelSpecFrom({})).toEqual({ provider: "echo" });
    expect(await chatModel({})).toBeInstanceOf(EchoChatModel);
  });

  it("is a real provider's model when its key is set (no request is made to build it)", async () => {
    expect(await chatModel({ OPENAI_API_KEY: "sk-test" })).toBeInstanceOf(ChatOpenAI);
    expect(await chatModel({ ANTHROPIC_API_KEY: "sk-ant-test" })).toBeInstanceOf(ChatAnthropic);
    expect(modelSpecFrom({ OPENAI_API_KEY: "x" })).toEqual({ provider: "openai", model: "gpt-4o-mini" });
  });

  it("honours BERTH_CHAT_MODEL, and rejects a malformed one", async () => {
    expect(modelSpecFrom({ BERTH_CHAT_MODEL: "anthropic:claude-x", OPENAI_API_KEY: "x" })).toEqual({ provider: "anthropic", model: "claude-x" });
    expect(modelSpecFrom({ BERTH_CHAT_MODEL: "echo", OPENAI_API_KEY: "x" })).toEqual({ provider: "echo" });
    expect(() => modelSpecFrom({ BERTH_CHAT_MODEL: "gpt-4" })).toThrow(/BERTH_CHAT_MODEL/);
  });

  it("answers deterministically and streams word by word", async () => {
    const model = new EchoChatModel();
    const reply = await model.invoke([{ role: "user", content: "hello there" }]);
    expect(reply.content).toBe("You said: hello there");
    const chunks: string[] = [];
    for await (const c of await model.stream([{ role: "user", content: "a b" }])) chunks.push(String(c.content));
    expect(chunks.join("")).toBe("You said: a b");
    expect(chunks.length).toBeGreaterThan(1);
  });
});
