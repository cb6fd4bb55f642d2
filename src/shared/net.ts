/** Listening on a port, with errors a person can act on. */
import type { Server } from "node:net";

/** The error to show for a failed listen on `host:port`. */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code === "EADDRINUSE") return new Error(`port ${port} on ${host} is already in use: stop the other process or pass --port <n>`);
  if (err.code === "EACCES") return new Error(`not allowed to listen on ${host}:${port}: pick a port above 1024 with --port`);
  return err;
}

/** Listen, resolving once bound and rejecting with `listenError`. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => reject(listenError(err, host, port));
    server.once("error", onError);
    server.listen({ port, host, exclusive: true }, () => {
      server.off("error", onError);
      resolve();
    });
  });
}
