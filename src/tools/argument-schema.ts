import type { ErrorObject, ValidateFunction } from "ajv";
import { PatternWorkError } from "../core/re2-regexp.js";
import { SchemaCompiler } from "../llm/schema-compiler.js";
import { inPlaceCycle, schemaTooDeep } from "../llm/schema-cycles.js";

/** One way a tool's arguments break its schema: where (`["items", 0]`), and how. */
export interface ArgumentProblem {
  path: (string | number)[];
  message: string;
}

/** The problems of one call's arguments; empty when they fit. */
export type ArgumentCheck = (value: unknown) => ArgumentProblem[];

/**
 * Lenient about keywords Ajv does not know: clients send `title`, `examples` and vendor
 * extensions in tool schemas.
 */
const compiler = new SchemaCompiler({ strict: false }, "holdfast:tool-arguments");

/**
 * A check of tool arguments against a JSON Schema that cannot stall the server, or why the
 * schema is unusable: a `$ref` that leads back to where it stands without entering a property
 * or an item (checking any value would never end), nesting past what a schema needs, a pattern
 * RE2 refuses, or what Ajv cannot compile. A value nested so deep that checking it exhausts the
 * stack is a problem of the arguments, not a crash.
 */
export function argumentCheck(
  schema: Record<string, unknown>,
): { ok: true; check: ArgumentCheck } | { ok: false; error: string } {
  let validate: ValidateFunction;
  try {
    if (schemaTooDeep(schema)) return { ok: false, error: "the schema nests too deeply" };
    const cycle = inPlaceCycle(schema);
    if (cycle !== null) {
      return {
        ok: false,
        error: `the schema at '${cycle}' refers back to itself without entering a property or an item`,
      };
    }
    validate = compiler.compile(schema);
  } catch (error) {
    // A schema too large to walk or to compile (RangeError) is as unusable as a wrong one.
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  return {
    ok: true,
    check: (value) => {
      try {
        return validate(value) ? [] : byPath((validate.errors ?? []).map(problemOf));
      } catch (error) {
        if (error instanceof PatternWorkError) return [{ path: [], message: error.message }];
        if (!(error instanceof RangeError)) throw error;
        return [{ path: [], message: "the arguments nest too deeply to be checked" }];
      }
    },
  };
}

/** Problems in the order of their arguments' paths (Ajv's order follows its keywords). */
function byPath(problems: ArgumentProblem[]): ArgumentProblem[] {
  const key = (problem: ArgumentProblem) => problem.path.join("\u0000");
  return problems.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Ajv's error at its argument: a missing or extra property is named in the path. */
function problemOf(error: ErrorObject): ArgumentProblem {
  const path: (string | number)[] = error.instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (error.keyword === "required") path.push(String(error.params.missingProperty));
  if (error.keyword === "additionalProperties") path.push(String(error.params.additionalProperty));
  return { path, message: error.message ?? error.keyword };
}
