import type { MiddlewareHandler } from "hono";
import { body } from "./error-response.js";

/** The project (tenant) every request without auth belongs to. */
export const DEFAULT_PROJECT = "default";

/**
 * Paths anyone may read: health, the API's documentation, and the console's static files (they
 * hold no data; the console asks for a token when the API answers 401).
 */
const OPEN_PATHS = [
  /^\/v1\/health\/?$/,
  /^\/openapi\.json$/,
  /^\/docs\/?$/,
  /^\/$/,
  /^\/console(\/|$)/,
];

/**
 * What every handler can read: the caller's project, and the durability barrier to await before
 * anything is acknowledged (`flush`; at once where commits are already durable).
 */
export type AppEnv = { Variables: { projectId: string; flush: () => Promise<void> } };

/**
 * Bearer-token auth: each token maps to a project, and every agent belongs to one project.
 * With no tokens configured, every request is the default project (the server then binds to
 * loopback only; see serve-action.ts).
 */
export function authenticate(
  tokens: ReadonlyMap<string, string> | null,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (tokens === null || OPEN_PATHS.some((open) => open.test(c.req.path))) {
      c.set("projectId", DEFAULT_PROJECT);
      return next();
    }
    const header = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    const projectId = token ? tokens.get(token) : undefined;
    if (!projectId) {
      const why = token ? "the token is not valid" : "send Authorization: Bearer <token>";
      return c.json(body("UNAUTHORIZED", `unauthorized: ${why}`), 401);
    }
    c.set("projectId", projectId);
    return next();
  };
}

/** Parses `token:project,token:project` (HOLDFAST_TOKENS); a bare token gets the default project. */
export function parseTokens(spec: string | undefined): Map<string, string> | null {
  if (!spec?.trim()) return null;
  const tokens = new Map<string, string>();
  for (const entry of spec.split(",")) {
    const [token, project] = entry.trim().split(":");
    if (token) tokens.set(token, project?.trim() || DEFAULT_PROJECT);
  }
  return tokens.size > 0 ? tokens : null;
}
