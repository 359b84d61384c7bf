import type { z } from "zod";
import type { FieldError } from "./errors.js";

/** Joins a path the way users write it in YAML and JSON: `types.researcher.tools.allow.0`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

/**
 * Turns zod issues into one field error per problem. An object with unknown keys becomes one
 * error per key, located at the key itself, so that every error names its full path.
 */
export function fieldErrorsFromZod(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
  explainUnknownKey: (key: string) => string | undefined = () => undefined,
): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const at = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const message = explainUnknownKey(key) ?? "unknown field";
        out.push({ path: formatPath([...at, key]), message });
      }
    } else {
      out.push({ path: formatPath(at), message: issue.message });
    }
  }
  return out;
}
