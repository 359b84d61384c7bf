import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./auth.js";

export const LOG_LEVELS = ["silent", "error", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where log lines go: one JSON object per line. */
export type LogSink = (line: Record<string, unknown>) => void;

/** Writes JSON lines at or above `level` to `write`. */
export function jsonLogger(level: LogLevel, write: (text: string) => void) {
  const rank = (l: LogLevel) => LOG_LEVELS.indexOf(l);
  return (at: Exclude<LogLevel, "silent">, line: Record<string, unknown>) => {
    if (rank(level) >= rank(at))
      write(`${JSON.stringify({ level: at, time: new Date().toISOString(), ...line })}\n`);
  };
}

/** One line per request: method, path, status, duration, and the agent it was about. */
export function requestLog(log: LogSink): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const agentId = /\/agents\/(agent-[^/]+)/.exec(c.req.path)?.[1];
    log({
      msg: "request",
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - start) * 100) / 100,
      ...(agentId ? { agent_id: agentId } : {}),
      project: c.get("projectId"),
    });
  };
}
