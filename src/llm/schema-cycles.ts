/**
 * Loops in a JSON Schema that no value can end. A `$ref` (like `allOf`, `anyOf`, `oneOf`,
 * `not`, `if`/`then`/`else` and `dependentSchemas`) applies its target to the same value it
 * stands on; `properties`, `items` and the like apply theirs to a part of it. A recursive
 * schema whose loop passes through a part is fine: the value's own depth ends it. A loop of
 * the first kind only (`{"$ref": "#"}`, two `$defs` naming each other) recurses until the
 * stack runs out, whatever the value, so the schema is refused before anything checks with it.
 */

/** Deeper than any schema a tool needs; walking it is bounded by this. */
const MAX_SCHEMA_DEPTH = 64;

/** Keywords whose schemas apply to the same value. */
const SAME_VALUE_LISTS = ["allOf", "anyOf", "oneOf"];
const SAME_VALUE_ONE = ["not", "if", "then", "else"];
const SAME_VALUE_MAPS = ["dependentSchemas", "dependencies"];
/** Keywords whose schemas apply to a part of the value. */
const PART_ONE = [
  "items",
  "additionalItems",
  "contains",
  "additionalProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const PART_LISTS = ["prefixItems", "items"];
const PART_MAPS = ["properties", "patternProperties"];
/** Where definitions wait to be referred to (a part of nothing until a `$ref` names them). */
const DEFINITION_MAPS = ["$defs", "definitions"];

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether the schema's subschemas nest deeper than {@link MAX_SCHEMA_DEPTH}. */
export function schemaTooDeep(schema: unknown, depth = 0): boolean {
  if (!isSchema(schema)) return false;
  if (depth > MAX_SCHEMA_DEPTH) return true;
  return childSchemas(schema, "#").some(({ schema: child }) => schemaTooDeep(child, depth + 1));
}

/**
 * The JSON pointer of a schema on a loop of same-value references, or null if there is none.
 * Call after {@link schemaTooDeep}: the walk recurses as deep as the schema nests.
 */
export function inPlaceCycle(root: Schema): string | null {
  const every: Located[] = [];
  const collect = (schema: Schema, pointer: string) => {
    every.push({ schema, pointer });
    for (const child of childSchemas(schema, pointer)) collect(child.schema, child.pointer);
  };
  collect(root, "#");
  // Depth-first over same-value edges only: a loop through a part is not one of these.
  const state = new Map<Schema, "open" | "done">();
  const visit = (schema: Schema, pointer: string): string | null => {
    const seen = state.get(schema);
    if (seen === "open") return pointer;
    if (seen === "done") return null;
    state.set(schema, "open");
    for (const next of sameValueSchemas(root, schema, pointer)) {
      const found = visit(next.schema, next.pointer);
      if (found !== null) return found;
    }
    state.set(schema, "done");
    return null;
  };
  for (const { schema, pointer } of every) {
    const found = visit(schema, pointer);
    if (found !== null) return found;
  }
  return null;
}

interface Located {
  schema: Schema;
  pointer: string;
}

/** The schemas that apply to the same value as `schema`, its `$ref` resolved. */
function sameValueSchemas(root: Schema, schema: Schema, pointer: string): Located[] {
  const out: Located[] = [];
  if (typeof schema.$ref === "string") {
    const target = resolveLocal(root, schema.$ref);
    if (target) out.push({ schema: target, pointer: schema.$ref });
  }
  for (const key of SAME_VALUE_ONE) {
    const value = schema[key];
    if (isSchema(value)) out.push({ schema: value, pointer: `${pointer}/${key}` });
  }
  for (const key of SAME_VALUE_LISTS) listed(schema[key], `${pointer}/${key}`, out);
  for (const key of SAME_VALUE_MAPS) mapped(schema[key], `${pointer}/${key}`, out);
  return out;
}

/** Every subschema one level down, `$defs` and `definitions` included. */
function childSchemas(schema: Schema, pointer: string): Located[] {
  const out: Located[] = [];
  for (const key of [...SAME_VALUE_ONE, ...PART_ONE]) {
    const value = schema[key];
    if (isSchema(value)) out.push({ schema: value, pointer: `${pointer}/${key}` });
  }
  for (const key of [...SAME_VALUE_LISTS, ...PART_LISTS])
    listed(schema[key], `${pointer}/${key}`, out);
  for (const key of [...SAME_VALUE_MAPS, ...PART_MAPS, ...DEFINITION_MAPS]) {
    mapped(schema[key], `${pointer}/${key}`, out);
  }
  return out;
}

function listed(value: unknown, pointer: string, out: Located[]): void {
  if (!Array.isArray(value)) return;
  value.forEach((item, i) => {
    if (isSchema(item)) out.push({ schema: item, pointer: `${pointer}/${i}` });
  });
}

function mapped(value: unknown, pointer: string, out: Located[]): void {
  if (!isSchema(value)) return;
  for (const [key, item] of Object.entries(value)) {
    if (isSchema(item)) out.push({ schema: item, pointer: `${pointer}/${pointerSegment(key)}` });
  }
}

const pointerSegment = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** A `#…` reference within the schema itself; null for any other (Ajv refuses those). */
function resolveLocal(root: Schema, ref: string): Schema | null {
  if (!ref.startsWith("#")) return null;
  let at: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isSchema(at) && !Array.isArray(at)) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return isSchema(at) ? at : null;
}
