import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { PatternWorkError, re2RegExp } from "../core/re2-regexp.js";
import { inPlaceCycle, schemaTooDeep } from "./schema-cycles.js";

/** One problem with a schema or a value, at a JSON pointer (`/properties/score/type`, `/score`). */
export interface SchemaViolation {
  /** The JSON pointer of the offending part; "" for the whole. */
  pointer: string;
  message: string;
}

/**
 * Strict, JSON Schema draft 07: an unknown keyword or a misspelt type is an error, never
 * ignored, so that a schema a config file names means what it says. Formats are not checked
 * (they would need a plugin a provider may not mirror); `$ref` to remote schemas is refused by
 * having no loader.
 */
let instance: Ajv | undefined;
/** Ajv, loaded when the first schema is checked (most servers never check one). */
function ajv(): Ajv {
  if (!instance) {
    const { Ajv: AjvClass } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
    instance = new AjvClass({
      strict: true,
      allErrors: true,
      validateFormats: false,
      // Schemas are compiled on their own: two types' schemas with the same `$id` do not clash.
      addUsedSchema: false,
      // A model's reply is checked on the event loop: no pattern may backtrack for hours.
      code: { regExp: re2RegExp },
    });
  }
  return instance;
}

const ROOT_ID = "holdfast:output-schema";

/** Compiled validators by schema text: a type's schema is compiled once, not per reply. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 256;

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
    if (!ajv().validateSchema(schema)) return (ajv().errors ?? []).map(violation);
    if (schemaTooDeep(schema)) return [{ pointer: "", message: "the schema nests too deeply" }];
    const cycle = inPlaceCycle(schema);
    if (cycle !== null) {
      const message = "refers back to itself without entering a property or an item";
      return [{ pointer: cycle.slice(1), message }];
    }
    validatorFor(schema);
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
  const validate = validatorFor(schema);
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

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    // A root without `$id` cannot be the target of `"$ref": "#"` when Ajv keeps no registry.
    validate = ajv().compile(typeof schema.$id === "string" ? schema : { ...schema, $id: ROOT_ID });
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

function violation(error: ErrorObject): SchemaViolation {
  const missing = error.keyword === "required" ? `/${String(error.params.missingProperty)}` : "";
  const extra =
    error.keyword === "additionalProperties" ? `/${String(error.params.additionalProperty)}` : "";
  const pointer = `${error.instancePath}${missing}${extra}`;
  return { pointer, message: error.message ?? error.keyword };
}
