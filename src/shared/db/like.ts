/**
 * LIKE patterns built from user text. `%` and `_` typed by a user are literal characters, not
 * wildcards: a search for `a_b` must not match `axb`. One helper, so no query forgets to escape.
 */

/** `s` as a LIKE pattern that matches it literally (backslash is Postgres's default LIKE escape). */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A LIKE/ILIKE pattern matching any text that contains `s` literally. */
export function containsPattern(s: string): string {
  return `%${likeEscape(s)}%`;
}
