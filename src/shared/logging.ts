/**
 * pino logging shared by every component. JSON lines by default (what log collectors want);
 * `LOG_PRETTY=1` pretty-prints for humans when pino-pretty is installed.
 */
import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(options: { level?: string; name?: string; pretty?: boolean } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? "info";
  const pretty = options.pretty ?? process.env.LOG_PRETTY === "1";
  return pino({
    name: options.name ?? "berth",
    level,
    ...(pretty ? { transport: { target: "pino-pretty", options: { colorize: true } } } : {}),
  });
}

/** A logger that drops everything, for library use and tests that don't care. */
export const silentLogger: Logger = pino({ level: "silent" });
