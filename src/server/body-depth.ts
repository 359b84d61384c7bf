import type { MiddlewareHandler } from "hono";
import { ValidationError } from "../core/errors.js";
import { FREE_FORM_MAX_DEPTH } from "../records/free-form-json.js";
import type { AppEnv } from "./auth.js";
import { carriesNoBody } from "./request-body.js";

/**
 * How deep a request body may nest. Every body Holdfast takes is a few levels of its own
 * fields around free-form values, which are held to {@link FREE_FORM_MAX_DEPTH} with a precise
 * field path; this bound sits above both, for fields no schema names.
 */
export const MAX_BODY_DEPTH = FREE_FORM_MAX_DEPTH * 2;

const OPEN_ARRAY = "[".charCodeAt(0);
const OPEN_OBJECT = "{".charCodeAt(0);
const CLOSE_ARRAY = "]".charCodeAt(0);
const CLOSE_OBJECT = "}".charCodeAt(0);
const QUOTE = '"'.charCodeAt(0);
const BACKSLASH = "\\".charCodeAt(0);

/**
 * Whether JSON `text` opens more than `limit` arrays and objects inside one another. It scans
 * the text, not a parsed value, so it holds for malformed JSON too and never recurses.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      if (depth > limit) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * Refuses a request body nested deeper than {@link MAX_BODY_DEPTH}, whatever route it is for,
 * before any handler parses it: a value that deep serves no client, and code that walks it
 * recursively (`JSON.stringify`, a schema of nested objects) would exhaust the call stack.
 * The body limit ran before, so the text read here is bounded; handlers read it from cache.
 * A multipart body carries files: a folder's file is data of any shape, and a route that
 * reads a file as JSON (an agent file) checks that file itself ({@link refuseDeepText}).
 */
export const refuseDeepBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (carriesNoBody(c) || c.req.header("content-type")?.startsWith("multipart/form-data"))
    return next();
  refuseDeepText(await c.req.text(), "");
  return next();
};

/** Throws a 422 at `path` when JSON `text` nests deeper than {@link MAX_BODY_DEPTH}. */
export function refuseDeepText(text: string, path: string): void {
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
    const what = path === "" ? "the body" : `'${path}'`;
    throw new ValidationError("invalid request", [
      { path, message: `${what} is nested more than ${MAX_BODY_DEPTH} levels deep` },
    ]);
  }
}
