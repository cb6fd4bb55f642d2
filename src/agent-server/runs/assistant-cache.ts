/**
 * Assistants as run creation reads them, kept in memory: reading the assistant was a round trip of
 * its own on every run (issue 16). A kept copy is never trusted blindly: it carries the row version
 * it was read at, and the statement that inserts the run inserts nothing if the assistant's row
 * has changed since (updated or deleted, by this process or any other), in which case the caller
 * forgets the copy and creates the run again from a fresh read.
 */
import type { Assistant, AssistantStore } from "../storage/assistants.js";

export interface VersionedAssistant {
  assistant: Assistant;
  rowVersion: string;
}

/** Assistants kept at most (a deployment has a handful; the bound is against ids made per request). */
const MAX_ENTRIES = 1000;

export class AssistantCache {
  private readonly entries = new Map<string, VersionedAssistant>();

  constructor(private readonly store: AssistantStore) {}

  async get(idOrGraph: string): Promise<VersionedAssistant> {
    const id = this.store.resolveId(idOrGraph);
    const kept = this.entries.get(id);
    if (kept) return kept;
    const fresh = await this.store.getVersioned(id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, fresh);
    return fresh;
  }

  forget(assistantId: string): void {
    this.entries.delete(assistantId);
  }
}
