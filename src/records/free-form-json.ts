import { z } from "zod";

/** How deep a free-form JSON field may nest: `{"a": {"b": 1}}` is 2 deep. */
export const FREE_FORM_MAX_DEPTH = 32;
/** How large a free-form JSON field may be, serialized as UTF-8 JSON. */
export const FREE_FORM_MAX_BYTES = 64 * 1024;

/**
 * Why `value` is too deep or too large to store, or `undefined` when it fits. The walk keeps
 * its own stack: a value nested thousands deep is exactly what must not exhaust the call
 * stack, as `JSON.stringify` does (a 500 before this check existed).
 */
export function freeFormJsonProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > FREE_FORM_MAX_DEPTH) {
      return `nested more than ${FREE_FORM_MAX_DEPTH} levels deep; flatten it`;
    }
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? "");
  return bytes > FREE_FORM_MAX_BYTES
    ? `${bytes} bytes as JSON, over the limit of ${FREE_FORM_MAX_BYTES}; store less here`
    : undefined;
}

/**
 * A free-form JSON object a client may attach (metadata, a tool's JSON schema): any keys and
 * values, within {@link FREE_FORM_MAX_DEPTH} levels and {@link FREE_FORM_MAX_BYTES} bytes, so
 * that storing and answering with it can never fail.
 *
 * @example
 * const Body = z.object({ metadata: FreeFormObject.nullish() });
 */
export const FreeFormObject = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = freeFormJsonProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe(
    `Free-form JSON: at most ${FREE_FORM_MAX_DEPTH} levels deep and ${FREE_FORM_MAX_BYTES} bytes serialized.`,
  );
