import type { MiddlewareHandler } from "hono";
import { ValidationError } from "../core/errors.js";
import { formatPath } from "../core/field-errors.js";
import type { AppEnv } from "./auth.js";
import { carriesNoBody } from "./request-body.js";

/** A JSON escape that may stand for text no store keeps: NUL, or half a surrogate pair. */
const SUSPECT_ESCAPE = /\\u0000|\\u[dD][89a-fA-F]/;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as text, or null if it can. */
function unstorable(text: string): string | null {
  if (text.includes("\u0000")) return "contains a NUL character (\\u0000), which is not stored";
  if (LONE_SURROGATE.test(text)) {
    return "contains half of a UTF-16 surrogate pair (a lone \\ud800-\\udfff), which is not text";
  }
  return null;
}

/** The path and problem of the first string (key or value) in `value` that cannot be stored. */
export function firstUnstorableString(
  value: unknown,
  path: (string | number)[] = [],
): { path: string; message: string } | null {
  if (typeof value === "string") {
    const problem = unstorable(value);
    return problem === null ? null : { path: formatPath(path), message: problem };
  }
  if (typeof value !== "object" || value === null) return null;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : Object.entries(value);
  for (const [key, item] of entries) {
    if (typeof key === "string") {
      const problem = unstorable(key);
      if (problem !== null)
        return { path: formatPath([...path, key]), message: `its key ${problem}` };
    }
    const found = firstUnstorableString(item, [...path, key]);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Refuses a JSON body holding a string no store can keep as text — a NUL character, which
 * PostgreSQL refuses, or a lone surrogate, which is not Unicode and which PostgreSQL refuses
 * too — with a 422 naming the field, so both stores take the same requests and neither
 * answers a 500. Only a body whose text has such an escape is parsed for the field's path;
 * any other passes after one scan. Runs after the depth bound, so the walk is shallow.
 */
export const refuseUnstorableText: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (carriesNoBody(c) || !c.req.header("content-type")?.includes("json")) return next();
  const text = await c.req.text();
  if (!SUSPECT_ESCAPE.test(text)) return next();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return next(); // The route's own parsing says what is wrong with it.
  }
  const found = firstUnstorableString(parsed);
  if (found !== null) throw new ValidationError("invalid request", [found]);
  return next();
};
