/**
 * The commit a ref points at on the git host, so the build is pinned to it and the revision shows
 * `repo_commit_sha`. Asks the host's smart-HTTP endpoint (`<repo>/info/refs?service=git-upload-pack`,
 * what `git ls-remote` does over https), so the control plane's image needs no git binary. When the
 * host cannot be reached or does not know the ref, the sha stays unknown and Kaniko builds the
 * ref's head. Injectable: tests have no network.
 */

export type ResolveCommit = (repoUrl: string, ref: string, token?: string | null) => Promise<string | undefined>;

const SHA_RE = /^[0-9a-f]{40}$/i;

/** The refs of a smart-HTTP ref advertisement (pkt-lines), annotated tags peeled (`^{}` entries win). */
export function parseRefAdvertisement(body: string): Map<string, string> {
  const refs = new Map<string, string>();
  const peeled = new Map<string, string>();
  let i = 0;
  while (i + 4 <= body.length) {
    const len = Number.parseInt(body.slice(i, i + 4), 16);
    if (Number.isNaN(len)) break;
    if (len === 0) {
      i += 4; // flush-pkt
      continue;
    }
    const line = body.slice(i + 4, i + len).replace(/\n$/, "");
    i += len;
    if (line.startsWith("#")) continue; // "# service=git-upload-pack"
    const [head] = line.split("\0"); // capabilities follow the first ref
    const [sha, name] = (head ?? "").split(" ");
    if (!sha || !name || !SHA_RE.test(sha)) continue;
    if (name.endsWith("^{}")) peeled.set(name.slice(0, -3), sha.toLowerCase());
    else refs.set(name, sha.toLowerCase());
  }
  for (const [name, sha] of peeled) refs.set(name, sha);
  return refs;
}

/** `ref` as the advertisement names it: a branch name means `refs/heads/<name>`. */
export function fullRef(ref: string): string {
  return ref.startsWith("refs/") ? ref : `refs/heads/${ref}`;
}

export const smartHttpLsRemote: ResolveCommit = async (repoUrl, ref, token) => {
  if (SHA_RE.test(ref)) return ref.toLowerCase();
  const url = new URL(repoUrl);
  const headers: Record<string, string> = { "user-agent": "git/2.43.0 (berth)", accept: "application/x-git-upload-pack-advertisement" };
  const user = token ? "x-access-token" : decodeURIComponent(url.username);
  const password = token ?? decodeURIComponent(url.password);
  if (user || password) headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  url.username = "";
  url.password = "";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/info/refs`;
  url.search = "?service=git-upload-pack";
  const res = await fetch(url, { headers, redirect: "follow", signal: AbortSignal.timeout(15_000) });
  if (!res.ok) throw new Error(`the git host answered ${res.status} for ${url.origin}${url.pathname}`);
  return parseRefAdvertisement(await res.text()).get(fullRef(ref));
};
