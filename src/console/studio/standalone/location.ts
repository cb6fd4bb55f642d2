/**
 * Where the standalone Studio is (pure): the page is served at `<prefix>/studio/` and
 * `<prefix>/studio/<tab>` (src/agent-server/studio.ts), `<prefix>` being the agent server's
 * `http.mount_prefix` (usually empty). The agent server's API is at `<origin><prefix>`.
 */
export function studioLocation(origin: string, pathname: string): { apiUrl: string; basename: string } {
  const m = /^(.*?)\/studio(?:\/[^/]*)?$/.exec(pathname);
  const prefix = m ? m[1]! : "";
  return { apiUrl: `${origin}${prefix}`, basename: `${prefix}/studio` };
}
