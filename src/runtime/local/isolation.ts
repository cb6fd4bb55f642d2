/**
 * What keeps a local deployment's processes (install, build, agent server) away from the control
 * plane and from other deployments:
 * - its own directory `<dataDir>/deployments/<id>` (0700) holding its checkouts, its database, and
 *   the HOME and TMPDIR its processes get;
 * - when the control plane runs as root, a user of its own: a uid (and gid) per deployment, from
 *   a range no account uses, owning that directory, so its commands cannot read the control
 *   plane's keys and database nor another deployment's files or processes' environment. The uid
 *   is whoever owns the directory, so it survives restarts without any bookkeeping.
 * Not running as root, every process runs as the control plane's user: the directory modes and
 * the cleaned environment (env.ts) are all there is (the README says what that does not cover).
 */
import { chmod, chown, lstat, mkdir, readdir, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import path from "node:path";

/** The uids and gids of deployments: 200000–299999 (above login accounts, below user-namespace ranges). */
export const ISOLATION_ID_BASE = 200_000;
const ISOLATION_ID_RANGE = 100_000;

export interface RunAs {
  uid: number;
  gid: number;
}

/** Whether this process can give its children another user (it runs as root on a POSIX system). */
export const canSwitchUser = (): boolean => typeof process.getuid === "function" && process.getuid() === 0;

const isIsolationId = (id: number) => id >= ISOLATION_ID_BASE && id < ISOLATION_ID_BASE + ISOLATION_ID_RANGE;

/**
 * The user a deployment's processes run as: the owner of its directory when that is one of ours,
 * else a free id picked from the deployment id (probing past ids other deployments own).
 */
export async function deploymentUser(deploymentsDir: string, deploymentId: string): Promise<RunAs> {
  const own = await stat(path.join(deploymentsDir, deploymentId)).catch(() => undefined);
  if (own && isIsolationId(own.uid)) return { uid: own.uid, gid: own.uid };
  const taken = new Set<number>();
  for (const name of await readdir(deploymentsDir).catch(() => [] as string[])) {
    if (name === deploymentId) continue;
    const s = await stat(path.join(deploymentsDir, name)).catch(() => undefined);
    if (s) taken.add(s.uid);
  }
  const start = createHash("sha256").update(deploymentId).digest().readUInt32BE(0) % ISOLATION_ID_RANGE;
  for (let i = 0; i < ISOLATION_ID_RANGE; i++) {
    const uid = ISOLATION_ID_BASE + ((start + i) % ISOLATION_ID_RANGE);
    if (!taken.has(uid)) return { uid, gid: uid };
  }
  throw new Error("no free uid left for a deployment");
}

/**
 * The deployment's directory and the parts its processes write (HOME, TMPDIR, checkouts, the
 * embedded database), private to it: 0700, owned by `user` when there is one. Directories
 * written before (by an older version, as root) are handed over to the user.
 */
export async function prepareDeploymentDir(dir: string, user: RunAs | undefined): Promise<{ home: string; tmp: string }> {
  const home = path.join(dir, "home");
  const tmp = path.join(dir, "tmp");
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o711 });
  for (const d of [dir, home, tmp, path.join(dir, "revisions")]) {
    await mkdir(d, { recursive: true, mode: 0o700 });
    await chmod(d, 0o700);
  }
  if (user) {
    const top = await stat(dir);
    if (top.uid !== user.uid) await chownTree(dir, user);
    else for (const d of [home, tmp, path.join(dir, "revisions"), path.join(dir, "db")]) await chownTree(d, user, true);
  }
  return { home, tmp };
}

/**
 * Give `root` and everything under it to `user` (lchown: links are not followed). With `onlyIfForeign`,
 * a tree whose top already belongs to the user is left alone (a quick check, not a full walk).
 */
export async function chownTree(root: string, user: RunAs, onlyIfForeign = false): Promise<void> {
  const top = await lstat(root).catch(() => undefined);
  if (!top || (onlyIfForeign && top.uid === user.uid)) return;
  const walk = async (p: string): Promise<void> => {
    const s = await lstat(p);
    if (s.uid !== user.uid || s.gid !== user.gid) await chown(p, user.uid, user.gid).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
    });
    if (s.isDirectory() && !s.isSymbolicLink()) for (const name of await readdir(p)) await walk(path.join(p, name));
  };
  await walk(root);
}

/** The first ancestor of `dir` that other users cannot enter (no o+x), if any. */
export async function unreachableAncestor(dir: string): Promise<string | undefined> {
  let p = path.resolve(dir);
  for (;;) {
    const s = await stat(p).catch(() => undefined);
    if (s && (s.mode & 0o001) === 0) return p;
    const up = path.dirname(p);
    if (up === p) return undefined;
    p = up;
  }
}
