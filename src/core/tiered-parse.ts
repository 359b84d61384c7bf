import type { z } from "zod";

/**
 * zod compiles a parser (`new Function`) for an object schema the first time it parses with
 * it; the compiled parser is faster per call but costs far more than one interpreted parse, so
 * it pays back only after many parses. At start-up nearly every parse is a schema's first:
 * the built-in types, the config, the first rows and steps. These helpers keep the compiling
 * for schemas that are parsed often (both paths are zod's own and give the same result).
 */

/** Parses after which a schema gets zod's compiled parser. */
const COMPILE_AFTER = 32;
const parsesSoFar = new WeakMap<z.ZodType, number>();

/** `schema.safeParse(value)`, interpreted for the schema's first parses, compiled after. */
export function safeParseTiered<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  const count = parsesSoFar.get(schema) ?? 0;
  if (count >= COMPILE_AFTER) return schema.safeParse(value);
  parsesSoFar.set(schema, count + 1);
  return schema.safeParse(value, { jitless: true });
}

/** `schema.safeParse(value)` for a schema parsed once or a few times (config, built-ins). */
export function safeParseOnce<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(value, { jitless: true });
}

/** `schema.parse(value)` for a schema parsed once or a few times. */
export function parseOnce<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return schema.parse(value, { jitless: true });
}
