/**
 * From a trace back to the Studio (pure). The agent server traces each run with the run's ids in
 * its metadata (agent-server/runs/execute.ts: thread_id, assistant_id) into the project named after
 * the deployment (runtime/local/env.ts: LANGSMITH_PROJECT = the deployment's name), so a trace of a
 * deployment's run leads to that thread in that deployment's Studio.
 */
import { paths } from "../routes";

export interface StudioThreadRef {
  threadId: string;
  assistantId: string;
}

/** The thread and assistant a traced LangGraph run belongs to, from its metadata. */
export function studioThreadOf(metadata: Record<string, unknown> | null | undefined): StudioThreadRef | undefined {
  const threadId = metadata?.thread_id;
  const assistantId = metadata?.assistant_id;
  if (typeof threadId !== "string" || !threadId || typeof assistantId !== "string" || !assistantId) return undefined;
  return { threadId, assistantId };
}

/** The Studio address of that thread in the deployment whose name is the trace's project, if one is. */
export function studioPathFor(ref: StudioThreadRef | undefined, projectName: string | undefined, deployments: readonly { id: string; name: string }[]): string | undefined {
  if (!ref || !projectName) return undefined;
  const d = deployments.find((x) => x.name === projectName);
  return d ? paths.studio(d.id, "threads", ref.assistantId, ref.threadId) : undefined;
}
