import type { ErrorObject } from "ajv";
import { PatternWorkError } from "../core/re2-regexp.js";
import { SchemaCompiler } from "./schema-compiler.js";
import { inPlaceCycle, schemaTooDeep } from "./schema-cycles.js";

/** One problem with a schema or a value, at a JSON pointer (`/properties/score/type`, `/score`). */
export interface SchemaViolation {
  /** The JSON pointer of the offending part; "" for the whole. */
  pointer: string;
  message: string;
}

/**
 * Strict, JSON Schema draft 07: an unknown keyword or a misspelt type is an error, never
 * ignored, so that a schema a config file names means what it says.
 */
const compiler = new SchemaCompiler({ strict: true }, "holdfast:output-schema");

/**
 * The problems of a JSON Schema given as an output schema: not a valid draft-07 schema, an
 * unknown keyword, or a root that is not an object (OpenAI and Gemini accept only objects).
 * Empty when the schema is good.
 */
export function checkOutputSchema(schema: Record<string, unknown>): SchemaViolation[] {
  if (schema.type !== "object") {
    return [{ pointer: "/type", message: "the root of an output schema must be type 'object'" }];
  }
  try {
    if (!compiler.ajv().validateSchema(schema)) return (compiler.ajv().errors ?? []).map(violation);
    if (schemaTooDeep(schema)) return [{ pointer: "", message: "the schema nests too deeply" }];
    const cycle = inPlaceCycle(schema);
    if (cycle !== null) {
      const message = "refers back to itself without entering a property or an item";
      return [{ pointer: cycle.slice(1), message }];
    }
    compiler.compile(schema);
    return [];
  } catch (error) {
    // Strict mode reports unknown keywords as it compiles; an unknown `$schema` draft or a
    // `$ref` that cannot be resolved here throws too.
    return [{ pointer: "", message: error instanceof Error ? error.message : String(error) }];
  }
}

/** The ways `value` breaks `schema` (already checked with `checkOutputSchema`); empty if none. */
export function schemaViolations(
  schema: Record<string, unknown>,
  value: unknown,
): SchemaViolation[] {
  const validate = compiler.compile(schema);
  try {
    return validate(value) ? [] : (validate.errors ?? []).map(violation);
  } catch (error) {
    if (error instanceof PatternWorkError) return [{ pointer: "", message: error.message }];
    if (error instanceof RangeError)
      return [{ pointer: "", message: "nested too deeply to check" }];
    throw error;
  }
}

/** Violations as one line each, `at /score: must be number`. */
export function describeViolations(violations: readonly SchemaViolation[]): string {
  return violations.map((v) => `at ${v.pointer === "" ? "/" : v.pointer}: ${v.message}`).join("; ");
}

function violation(error: ErrorObject): SchemaViolation {
  const missing = error.keyword === "required" ? `/${String(error.params.missingProperty)}` : "";
  const extra =
    error.keyword === "additionalProperties" ? `/${String(error.params.additionalProperty)}` : "";
  const pointer = `${error.instancePath}${missing}${extra}`;
  return { pointer, message: error.message ?? error.keyword };
}
