/**
 * The tools of this deployment: its assistants, read through the assistants store (so whatever
 * filters the store applies to a caller apply to the tool list too), with each graph's input
 * schema and its compiled validator kept per graph (graphs do not change while the process runs).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { AgentServerContext } from "../context.js";
import { graphSchemas } from "../graphs/schemas.js";
import type { Assistant } from "../storage/assistants.js";
import type { Authz } from "../auth/access.js";
import type { TypeSchemas } from "../graphs/type-schemas/service.js";
import { firstByName, toolInputSchema, toolOf, type JsonSchema } from "./tools.js";

/** Accepts the arguments, or says why not. */
export type ArgumentsCheck = (args: unknown) => string | undefined;

interface GraphTool {
  inputSchema: Tool["inputSchema"];
  check: ArgumentsCheck;
  /** The schemas from TypeScript types it was made with: when they arrive later, the tool is remade. */
  fromTypes?: TypeSchemas;
}

const PAGE = 500;

export class ToolCatalog {
  private readonly graphs = new Map<string, Promise<GraphTool>>();
  private readonly validators = new AjvJsonSchemaValidator();

  constructor(private readonly ctx: AgentServerContext) {}

  /** Every assistant whose graph this deployment serves, oldest first, one per name (`name`: those whose name contains it). */
  private async assistants(authz: Authz, name?: string): Promise<Assistant[]> {
    const all: Assistant[] = [];
    // the caller's `assistants:search` filters (custom auth): a tool is an assistant it may see
    const authFilters = await authz.check("assistants", "search", { metadata: {}, limit: PAGE, offset: 0 });
    for (let offset = 0; ; offset += PAGE) {
      const { items } = await this.ctx.assistants.search({ name, limit: PAGE, offset, sort_by: "created_at", sort_order: "asc", authFilters });
      all.push(...items);
      if (items.length < PAGE) break;
    }
    return firstByName(all.filter((a) => this.ctx.registry.has(a.graph_id)));
  }

  async list(authz: Authz): Promise<Tool[]> {
    const tools: Tool[] = [];
    for (const a of await this.assistants(authz)) {
      const { inputSchema } = await this.graphTool(a.graph_id);
      tools.push(toolOf(a, inputSchema, this.ctx.registry.specs.get(a.graph_id)?.description));
    }
    return tools;
  }

  /** The assistant a tool name stands for, or undefined. */
  async find(authz: Authz, name: string): Promise<Assistant | undefined> {
    if (!name) return undefined;
    return (await this.assistants(authz, name)).find((a) => a.name === name);
  }

  /** The check of a graph's tool arguments against its input schema. */
  async check(graphId: string): Promise<ArgumentsCheck> {
    return (await this.graphTool(graphId)).check;
  }

  private async graphTool(graphId: string): Promise<GraphTool> {
    let tool = this.graphs.get(graphId);
    if (tool && (await tool.catch(() => undefined))?.fromTypes !== this.ctx.typeSchemas?.get(graphId)) tool = undefined;
    if (!tool) {
      tool = this.loadGraphTool(graphId);
      this.graphs.set(graphId, tool);
      tool.catch(() => this.graphs.delete(graphId));
    }
    return tool;
  }

  private async loadGraphTool(graphId: string): Promise<GraphTool> {
    const graph = await this.ctx.registry.get(graphId);
    const fromTypes = this.ctx.typeSchemas?.get(graphId);
    const inputSchema = toolInputSchema(graphSchemas(graph, fromTypes).input_schema);
    return { inputSchema, check: this.compile(graphId, inputSchema), fromTypes };
  }

  private compile(graphId: string, schema: JsonSchema): ArgumentsCheck {
    // `$schema` names the dialect (2020-12 for zod states); ajv's default dialect reads the keywords LangGraph emits
    const { $schema: _dialect, ...rest } = schema;
    try {
      const validate = this.validators.getValidator(rest);
      return (args) => {
        const r = validate(args);
        return r.valid ? undefined : r.errorMessage;
      };
    } catch (err) {
      // a schema ajv cannot compile must not make the tool unusable: the graph still checks its input
      this.ctx.logger.warn({ err, graph_id: graphId }, "MCP: the graph's input schema cannot be compiled; tool arguments are not validated");
      return () => undefined;
    }
  }
}
