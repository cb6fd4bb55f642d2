/** A run's "trace" link: the host (the Studio page) decides where a trace opens. */
export function TraceLink({ runId, onOpenTrace }: { runId: string; onOpenTrace: (runId: string) => void }) {
  return (
    <button type="button" className="link" aria-label={`Open trace of run ${runId}`} onClick={() => onOpenTrace(runId)}>
      trace
    </button>
  );
}
