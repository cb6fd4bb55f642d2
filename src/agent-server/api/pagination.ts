/** Pagination headers of search endpoints: total, and the offset of the next page when there is one. */
export function paginationHeaders(total: number, offset: number, count: number): Record<string, string> {
  const headers: Record<string, string> = { "X-Pagination-Total": String(total) };
  if (offset + count < total) headers["X-Pagination-Next"] = String(offset + count);
  return headers;
}
