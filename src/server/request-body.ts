import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/**
 * Whether a request cannot carry a body, asked of its method rather than of `c.req.raw.body`:
 * with @hono/node-server, reading `body` turns the lightweight request into a full web Request
 * whose body is a web stream — on every request, GETs included — while `text()` and
 * `arrayBuffer()` read the socket directly.
 */
export const carriesNoBody = (c: Context): boolean =>
  c.req.method === "GET" || c.req.method === "HEAD";

/**
 * Refuses a body over `maxSize` bytes with `tooLarge`: by its Content-Length when it has one
 * (Node's parser never reads more than that), else counted as it streams in.
 */
export function limitBodySize(
  maxSize: number,
  tooLarge: (c: Context) => Response,
): MiddlewareHandler {
  const counted = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    if (carriesNoBody(c)) return next();
    const length = c.req.header("content-length");
    if (length === undefined || c.req.header("transfer-encoding") !== undefined)
      return counted(c, next);
    return Number.parseInt(length, 10) > maxSize ? tooLarge(c) : next();
  };
}

/**
 * Reads to its end a body the handler never read (within the size limit) before the answer
 * goes out: answering mid-upload makes Node close the connection, and clients reusing it fail.
 */
export const drainUnreadBody: MiddlewareHandler = async (c, next) => {
  await next();
  if (carriesNoBody(c) || c.res.status === 413 || c.req.raw.bodyUsed) return;
  await c.req.raw.arrayBuffer().catch(() => undefined);
};
