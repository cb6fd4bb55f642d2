/** Small helpers for building the few dynamic SQL statements (filters, ordering, paging). */
import { authFilterSql, type AuthFilters } from "../auth/filters.js";

export class SqlBuilder {
  readonly params: unknown[] = [];
  readonly where: string[] = [];

  /** Add a parameter and return its placeholder. */
  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  and(clause: string): this {
    this.where.push(clause);
    return this;
  }

  /** The filters a custom auth handler returned, on a jsonb metadata column (none: no condition). */
  andAuth(filters: AuthFilters | undefined, column = "metadata"): this {
    for (const clause of authFilterSql(filters, column, (v) => this.p(v))) this.and(clause);
    return this;
  }

  whereSql(): string {
    return this.where.length ? `WHERE ${this.where.join(" AND ")}` : "";
  }
}

/** ORDER BY from a whitelisted column; unknown columns never reach SQL. */
export function orderBy(column: string | undefined, allowed: readonly string[], fallback: string, dir: "asc" | "desc" | undefined): string {
  const col = column && allowed.includes(column) ? column : fallback;
  return `ORDER BY ${col} ${dir === "asc" ? "ASC" : "DESC"}`;
}

/** Pick only the selected fields of a record (the `select` option of search endpoints). */
export function selectFields<T extends Record<string, unknown>>(row: T, select: string[] | undefined): Partial<T> {
  if (!select || select.length === 0) return row;
  return Object.fromEntries(select.filter((k) => k in row).map((k) => [k, row[k]])) as Partial<T>;
}
