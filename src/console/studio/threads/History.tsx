/**
 * A thread's checkpoint history, one page at a time (newest first), with the checkpoint opened
 * beside it for time travel, and any two checkpoints ticked for comparison.
 */
import type { Client, ThreadState } from "@langchain/langgraph-sdk";
import { useState } from "react";
import { CheckpointPanel } from "./CheckpointPanel";
import { DiffView } from "./DiffView";
import { Timeline } from "./Timeline";
import { firstPage, historyQuery, older, newer, toPage, type Page, type Paging } from "./timeline";
import { errorText, useLoad } from "./useLoad";

export function History({
  client,
  threadId,
  assistantId,
  graphId,
  onOpenTrace,
  onChanged,
}: {
  client: Client;
  threadId: string;
  assistantId: string;
  graphId: string;
  onOpenTrace?: (runId: string) => void;
  onChanged: () => void;
}) {
  const [paging, setPaging] = useState<Paging>(() => firstPage());
  const [openId, setOpenId] = useState<string>();
  const [opened, setOpened] = useState<ThreadState>();
  const [compare, setCompare] = useState<ThreadState[]>([]);
  const page = useLoad<Page<ThreadState>>(
    async (signal) => toPage(paging, await client.threads.getHistory(threadId, { ...historyQuery(paging), signal })),
    [client, threadId, JSON.stringify(paging)],
  );
  // the opened checkpoint is kept across pages; one named by id (a new edit) is taken when its page arrives
  const shown = opened ?? page.data?.items.find((s) => s.checkpoint.checkpoint_id === openId);
  const open = (s: ThreadState) => {
    setOpened(s);
    setOpenId(s.checkpoint.checkpoint_id ?? undefined);
  };
  const toggleCompare = (s: ThreadState) =>
    setCompare((c) => {
      const id = s.checkpoint.checkpoint_id;
      if (c.some((x) => x.checkpoint.checkpoint_id === id)) return c.filter((x) => x.checkpoint.checkpoint_id !== id);
      // two at most: ticking a third replaces the older pick
      return [...c, s].slice(-2);
    });
  /**
   * After an edit or a fork: back to the newest page. An edit's new checkpoint is opened; after a
   * fork the checkpoint it started from stays open, with the fork's run and trace link.
   */
  const changed = (newCheckpointId?: string) => {
    setPaging(firstPage(paging.pageSize));
    if (newCheckpointId) {
      setOpened(undefined);
      setOpenId(newCheckpointId);
    }
    page.reload();
    onChanged();
  };
  return (
    <div className="tt-history">
      <div className="tt-timeline-col">
        {page.error ? <p className="error" role="alert">Could not load history: {errorText(page.error)}</p> : null}
        {page.data ? (
          <Timeline
            items={page.data.items}
            pageNumber={paging.cursors.length}
            openId={shown?.checkpoint.checkpoint_id ?? undefined}
            compareIds={compare.map((c) => c.checkpoint.checkpoint_id ?? "")}
            onOpen={open}
            onToggleCompare={toggleCompare}
            onOpenTrace={onOpenTrace}
            onNewer={paging.cursors.length > 1 ? () => setPaging(newer(paging)) : undefined}
            onOlder={page.data.olderCursor ? () => setPaging(older(paging, page.data!.olderCursor!)) : undefined}
          />
        ) : (
          <p className="loading" role="status">Loading history…</p>
        )}
      </div>
      <div className="tt-checkpoint-col">
        {compare.length === 2 ? <DiffView a={compare[0]!} b={compare[1]!} onClose={() => setCompare([])} /> : null}
        {shown ? (
          <CheckpointPanel
            key={shown.checkpoint.checkpoint_id ?? ""}
            client={client}
            threadId={threadId}
            assistantId={assistantId}
            graphId={graphId}
            state={shown}
            parent={page.data?.items.find((s) => s.checkpoint.checkpoint_id === shown.parent_checkpoint?.checkpoint_id)}
            onOpenTrace={onOpenTrace}
            onChanged={changed}
          />
        ) : compare.length < 2 ? (
          <p className="muted">Open a checkpoint to see its state, edit it or fork a run from it; tick two to compare them.</p>
        ) : null}
      </div>
    </div>
  );
}
