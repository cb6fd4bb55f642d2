/**
 * The user of the process at the other end of a loopback TCP connection, from the kernel's socket
 * table (Linux: /proc/net/tcp and tcp6 list each socket with its owner's uid). The embedded dev
 * mode lets this machine's requests in without a key; this narrows "this machine" to "this user",
 * so a deployment's commands running as a user of their own (the local runtime as root) get no
 * such pass.
 */
import { readFileSync } from "node:fs";

/** The uid owning the client socket `clientPort → serverPort`; undefined where this cannot be known (not Linux). */
export function loopbackPeerUid(clientPort: number, serverPort: number): number | undefined {
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    const uid = peerUidIn(text, clientPort, serverPort);
    if (uid !== undefined) return uid;
  }
  return undefined;
}

/** In a /proc/net/tcp table (pure): the uid of the socket whose local port is `clientPort` and remote port `serverPort`. */
export function peerUidIn(table: string, clientPort: number, serverPort: number): number | undefined {
  const local = `:${clientPort.toString(16).toUpperCase().padStart(4, "0")}`;
  const remote = `:${serverPort.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const line of table.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 7 && f[1]!.endsWith(local) && f[2]!.endsWith(remote)) return Number(f[7]);
  }
  return undefined;
}
