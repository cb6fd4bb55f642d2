/** The services of one agent server process, created once at start-up and passed around. */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import type pg from "pg";
import type { Bus } from "../shared/bus/index.js";
import type { AgentServerSettings } from "../shared/config.js";
import type { Logger } from "../shared/logging.js";
import type { RequestAuthenticator } from "./auth/types.js";
import type { ResolvedConfig } from "./config/langgraph-config.js";
import type { GraphRegistry } from "./graphs/registry.js";
import type { TypeSchemaService } from "./graphs/type-schemas/service.js";
import type { Channels } from "./runs/channels.js";
import type { StateService } from "./state.js";
import type { AssistantStore } from "./storage/assistants.js";
import type { CronStore } from "./storage/crons.js";
import type { EventStore } from "./storage/events.js";
import type { RunStore } from "./storage/runs.js";
import type { ThreadStore } from "./storage/threads.js";
import type { UiBundles } from "./ui/bundles.js";

export interface AgentServerContext {
  settings: AgentServerSettings;
  config: ResolvedConfig;
  logger: Logger;
  pool: pg.Pool;
  /** Whether the database is the embedded PGlite. */
  embedded: boolean;
  bus: Bus;
  channels: Channels;
  registry: GraphRegistry;
  /** Graph schemas derived from TypeScript types in the background (absent: none). */
  typeSchemas?: TypeSchemaService;
  checkpointer: BaseCheckpointSaver;
  store: PostgresStore;
  assistants: AssistantStore;
  threads: ThreadStore;
  runs: RunStore;
  events: EventStore;
  crons: CronStore;
  state: StateService;
  /** Who requests come from (none, platform keys or the project's custom auth). */
  auth: RequestAuthenticator;
  /** The generative-UI bundles (langgraph.json `ui`), when this process serves them. */
  ui?: UiBundles;
}
