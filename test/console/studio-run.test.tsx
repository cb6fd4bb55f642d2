// @vitest-environment happy-dom
/**
 * The Studio's Run tab against a real `berth serve` (a child process, reached by the real
 * @langchain/langgraph-sdk Client, cross-origin as the console reaches a deployment): a run
 * cancelled with rollback is deleted by the server with what it wrote, and the page says so — the
 * run is not left showing a guessed `success` — and shows the thread as it went back to.
 */
import { Client } from "@langchain/langgraph-sdk";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RunTab } from "../../src/console/studio/RunTab";
import { createTestDatabase, startChild, type ChildServer, type TestDatabase } from "../helpers/server";

let db: TestDatabase;
let server: ChildServer;
let client: Client;

beforeAll(async () => {
  db = await createTestDatabase("pglite");
  server = await startChild("serve", db, { CORS_ALLOW_ORIGINS: "*" });
  client = new Client({ apiUrl: server.url!, callerOptions: { maxRetries: 0 } });
});

afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

afterEach(() => cleanup());

describe("cancelling a run", () => {
  it("with rollback shows the run rolled back (not success) and the thread as it went back to", async () => {
    // the `slow` graph's node waits delay_ms (on the run's abort signal): the run is busy until cancelled
    const slow = await client.assistants.create({ graphId: "slow", config: { configurable: { delay_ms: 600_000 } }, name: "slow for cancel" });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RunTab client={client} assistant={slow} />
      </QueryClientProvider>,
    );
    const input = await screen.findByRole("textbox", { name: "Message" }, { timeout: 30_000 });
    fireEvent.change(input, { target: { value: "roll me back" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    const runs = screen.getByRole("table", { name: "Runs" });
    await waitFor(() => expect(runs.querySelector("tr")?.getAttribute("data-status")).toBe("running"), { timeout: 30_000 });
    const runId = runs.querySelector("tr code")!.textContent!;
    const threadId = screen.getByText(/^[0-9a-f-]{36}$/).textContent!;

    fireEvent.click(screen.getByRole("button", { name: "Cancel and roll back" }));
    // the stream has ended (the page no longer has an active run): the status it is left with
    await screen.findByRole("button", { name: "Send" }, { timeout: 30_000 });
    expect(runs.querySelector("tr")?.getAttribute("data-status")).toBe("cancelled (rolled back)");
    expect(runs.querySelector("tr code")!.textContent).toBe(runId);

    // what the server did: the run and its checkpoints are gone
    expect((await client.runs.list(threadId)).filter((r) => r.run_id.startsWith(runId))).toEqual([]);
    const state = await client.threads.getState<{ messages?: unknown[] }>(threadId);
    expect(state.values.messages ?? []).toEqual([]);
    // and the page shows the thread as it is now: the rolled-back message is not in the conversation
    await waitFor(() => expect(within(screen.getByRole("region", { name: "Conversation" })).queryByText("roll me back")).toBeNull());
  });
});
