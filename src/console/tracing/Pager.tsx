/** Previous/next for the offset-paged lists (projects, threads). */

/** Previous/next by offset; "next" is offered while pages come back full. */
export function Pager({ offset, pageSize, count, onOffset }: { offset: number; pageSize: number; count: number; onOffset: (offset: number) => void }) {
  if (offset === 0 && count < pageSize) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        Previous page
      </button>
      <span className="muted">
        {count ? `${offset + 1}–${offset + count}` : "none"}
      </span>
      <button type="button" disabled={count < pageSize} onClick={() => onOffset(offset + pageSize)}>
        Next page
      </button>
    </nav>
  );
}
