import type { z } from "zod";

/**
 * Whether a value already is what `schema.parse` would return for it: every key known and
 * present, every value of its kind and within its checks. zod's parse builds a copy of every
 * object and array it checks; the store checks each step's records that way before writing
 * them, and those copies were ~40% of what a turn allocated (and what grew V8's young
 * generation under load). A value this accepts can be used as it is.
 *
 * It answers `false` whenever it is not sure — a schema kind or a check it does not know (a
 * refinement, a transform, a format other than a regex), a default to fill in, a key zod would
 * strip — and the caller then parses with zod, which also gives the errors. A property test
 * checks that it never accepts a value zod would reject or change.
 */
export function isExactly(schema: z.ZodType, value: unknown): boolean {
  return checkOf(schema)(value);
}

type Check = (value: unknown) => boolean;

// zod's definitions, as far as this reads them (zod 4's `_zod.def`).
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  format?: string;
  coerce?: boolean;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
}

interface CheckDef {
  check: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
  pattern?: RegExp;
}

const NOT_SURE: Check = () => false;
const checks = new WeakMap<z.ZodType, Check>();

function checkOf(schema: z.ZodType): Check {
  let check = checks.get(schema);
  if (check === undefined) {
    // Set first: a schema that contains itself (through z.lazy) is not supported anyway.
    checks.set(schema, NOT_SURE);
    check = build(defOf(schema));
    checks.set(schema, check);
  }
  return check;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Kinds whose checks `withChecks` reads; any other kind with checks (a refinement) is not. */
const KINDS_WITH_CHECKS = new Set(["string", "number", "boolean", "array"]);

function build(def: Def): Check {
  if (def.coerce) return NOT_SURE;
  if (def.checks?.length && !KINDS_WITH_CHECKS.has(def.type)) return NOT_SURE;
  switch (def.type) {
    case "string":
      return def.format === undefined ? withChecks(def, (v) => typeof v === "string") : NOT_SURE;
    case "number":
      return numberCheck(def);
    case "boolean":
      return withChecks(def, (v) => typeof v === "boolean");
    case "null":
      return (v) => v === null;
    case "unknown":
    case "any":
      return () => true;
    case "literal": {
      const values = def.values ?? [];
      return (v) => values.includes(v);
    }
    case "enum": {
      const values = Object.values(def.entries ?? {});
      return (v) => values.includes(v);
    }
    case "nullable": {
      const check = checkOf(def.innerType as z.ZodType);
      return (v) => v === null || check(v);
    }
    case "optional":
    case "default": {
      // Present values only: an absent key is the object's to judge (see objectCheck).
      const check = checkOf(def.innerType as z.ZodType);
      return (v) => v !== undefined && check(v);
    }
    case "array":
      return arrayCheck(def);
    case "object":
      return objectCheck(def);
    case "record":
      return recordCheck(def);
    case "union":
      return unionCheck(def);
    default:
      return NOT_SURE;
  }
}

/** A kind's own test, then its checks; a check this does not know makes it `NOT_SURE`. */
function withChecks(def: Def, kind: Check): Check {
  const tests: Check[] = [kind];
  for (const check of def.checks ?? []) {
    const test = checkTest(check._zod.def);
    if (test === null) return NOT_SURE;
    tests.push(test);
  }
  if (tests.length === 1) return kind;
  return (v) => {
    for (const test of tests) if (!test(v)) return false;
    return true;
  };
}

function checkTest(check: CheckDef): Check | null {
  const { minimum = 0, maximum = 0, length = 0, value = 0, pattern } = check;
  const size = (v: unknown) => (v as { length: number }).length;
  switch (check.check) {
    case "min_length":
      return (v) => size(v) >= minimum;
    case "max_length":
      return (v) => size(v) <= maximum;
    case "length_equals":
      return (v) => size(v) === length;
    case "greater_than":
      return check.inclusive ? (v) => (v as number) >= value : (v) => (v as number) > value;
    case "less_than":
      return check.inclusive ? (v) => (v as number) <= value : (v) => (v as number) < value;
    case "number_format":
      return integerTest(check.format);
    case "string_format":
      if (check.format !== "regex" || pattern === undefined) return null;
      return (v) => {
        pattern.lastIndex = 0;
        return pattern.test(v as string);
      };
    default:
      return null;
  }
}

function integerTest(format: string | undefined): Check | null {
  if (format === "safeint") return (v) => Number.isSafeInteger(v);
  if (format === "int32")
    return (v) => Number.isInteger(v) && (v as number) >= -(2 ** 31) && (v as number) < 2 ** 31;
  return null;
}

function numberCheck(def: Def): Check {
  const finite: Check = (v) => typeof v === "number" && Number.isFinite(v);
  if (def.format === undefined) return withChecks(def, finite);
  const format = integerTest(def.format);
  if (format === null) return NOT_SURE;
  const rest = withChecks({ ...def, format: undefined }, finite);
  return (v) => rest(v) && format(v);
}

function arrayCheck(def: Def): Check {
  const element = checkOf(def.element as z.ZodType);
  // Keys besides the indexes, holes or another prototype would not survive zod's copy.
  const plainArray = (v: unknown): v is unknown[] =>
    Array.isArray(v) &&
    Object.getPrototypeOf(v) === Array.prototype &&
    Object.keys(v).length === v.length;
  return withChecks(def, (v) => {
    if (!plainArray(v)) return false;
    for (const item of v) if (!element(item)) return false;
    return true;
  });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  // zod's copy is an ordinary object: one without Object's prototype would come out different,
  // and an own `__proto__` key (JSON.parse makes one) is not copied as a key.
  return Object.getPrototypeOf(v) === Object.prototype && !Object.hasOwn(v, "__proto__");
}

interface Field {
  key: string;
  check: Check;
  mayBeAbsent: boolean;
}

/**
 * Checks of an object schema after which it gets a compiled one. Compiling every schema at its
 * first check made the first check of six records' schemas 3.5 → 9.4 ms, start-up to a first
 * turn ~5 ms slower; a record checked every step is past this within a few turns.
 */
export const COMPILE_AFTER = 32;

function objectCheck(def: Def): Check {
  const fields = objectFields(def);
  if (fields === null) return NOT_SURE;
  const interpreted = interpretedObjectCheck(fields);
  let calls = 0;
  let current: Check = (v) => {
    calls += 1;
    if (calls >= COMPILE_AFTER) current = compiledObjectCheck(fields) ?? interpreted;
    return interpreted(v);
  };
  return (v) => current(v);
}

function objectFields(def: Def): Field[] | null {
  // A catch-all (strict or loose objects) changes what happens to other keys: not handled.
  if (def.type !== "object" || def.catchall !== undefined || def.checks?.length) return null;
  const fields = Object.entries(def.shape ?? {}).map(([key, schema]) => ({
    key,
    check: checkOf(schema),
    // Absent, an optional field stays absent in zod's output; a default would be filled in.
    mayBeAbsent: defOf(schema).type === "optional",
  }));
  // `v["__proto__"]` would read the prototype, not the key.
  return fields.some(({ key }) => key === "__proto__") ? null : fields;
}

/**
 * Both forms of an object schema's check, for the test that holds them to the same answers;
 * `null` for a schema the check leaves to zod.
 */
export function objectCheckForms(
  schema: z.ZodType,
): { interpreted: Check; compiled: Check } | null {
  const fields = objectFields(defOf(schema));
  const compiled = fields && compiledObjectCheck(fields);
  return fields && compiled ? { interpreted: interpretedObjectCheck(fields), compiled } : null;
}

/**
 * An object's check. The value must be an ordinary object (Object's prototype: not an array,
 * no inherited enumerable keys), each of its keys (`for…in`) a field, and every field it has
 * one of those keys: present and defined, of its kind. A key zod would strip or an own
 * `__proto__` key fails the first; a field present as `undefined` (zod would keep or refuse the
 * key), one own but not enumerable, or one read through the prototype (`toString`, which zod
 * would copy into its output) makes the two counts differ.
 */
function interpretedObjectCheck(fields: readonly Field[]): Check {
  const known = new Set(fields.map(({ key }) => key));
  return (v) => {
    if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) {
      return false;
    }
    let keys = 0;
    for (const key in v) {
      if (!known.has(key)) return false;
      keys++;
    }
    let seen = 0;
    for (const { key, check, mayBeAbsent } of fields) {
      const x = (v as Record<string, unknown>)[key];
      if (x !== undefined) {
        seen++;
        if (!check(x)) return false;
      } else if (!mayBeAbsent) return false;
    }
    return keys === seen;
  };
}

/**
 * The same check written out as a function of its own, with the schema's keys in its code.
 * Closures made at one place in the code share V8's type feedback: the interpreted check,
 * serving every schema, sees all their shapes, and ran 3–10× slower in the server than alone in
 * a loop. `null` where code cannot be made from strings (`--disallow-code-generation-from-strings`).
 */
function compiledObjectCheck(fields: readonly Field[]): Check | null {
  const names = fields.map(({ key }) => JSON.stringify(key));
  // Each own key must be a field's: the fields' names, then `default` for any other.
  const cases =
    names.map((name) => `case ${name}: `).join("") + (names.length ? "keys++; break; " : "");
  const tests = fields.map(({ mayBeAbsent }, i) => {
    const absent = mayBeAbsent ? "" : "else return false;";
    return `x = v[${names[i]}]; if (x !== undefined) { seen++; if (!c${i}(x)) return false; } ${absent}`;
  });
  const source = `return function exactObject(v) {
    if (typeof v !== "object" || v === null || getPrototypeOf(v) !== objectPrototype) return false;
    let keys = 0;
    for (const key in v) {
      switch (key) { ${cases}default: return false; }
    }
    let seen = 0;
    let x;
    ${tests.join("\n    ")}
    return keys === seen;
  };`;
  const parameters = fields.map((_, i) => `c${i}`);
  let make: (...args: unknown[]) => Check;
  try {
    make = new Function("getPrototypeOf", "objectPrototype", ...parameters, source) as never;
  } catch {
    return null;
  }
  const checksInOrder = fields.map(({ check }) => check);
  return make(Object.getPrototypeOf, Object.prototype, ...checksInOrder);
}

function recordCheck(def: Def): Check {
  const key = defOf(def.keyType as z.ZodType);
  // The record's own checks (refinements) were refused in `build`; its key's are not.
  if (key.type !== "string" || key.format !== undefined || key.checks?.length) return NOT_SURE;
  const value = checkOf(def.valueType as z.ZodType);
  return (v) => {
    if (!isPlainObject(v)) return false;
    for (const key in v) if (!value(v[key])) return false;
    return true;
  };
}

const SCALARS = new Set(["string", "number", "boolean", "null", "literal", "enum"]);

function unionCheck(def: Def): Check {
  const options = def.options ?? [];
  const discriminator = def.discriminator;
  if (discriminator !== undefined) {
    // zod picks the option by the discriminator's value: so does this.
    const byTag = tagTable(options, discriminator);
    if (byTag) {
      return (v) => {
        if (typeof v !== "object" || v === null) return false;
        const option = byTag.get((v as Record<string, unknown>)[discriminator]);
        return option !== undefined && checkOf(option)(v);
      };
    }
    const byOption = options.map((option) => {
      const shape = defOf(option).shape ?? {};
      const tag = shape[discriminator];
      return { tag: tag ? checkOf(tag) : NOT_SURE, check: checkOf(option) };
    });
    return (v) => {
      if (!isPlainObject(v)) return false;
      const chosen = byOption.find(({ tag }) => tag(v[discriminator]));
      return chosen?.check(v) ?? false;
    };
  }
  // zod returns the first option that parses; for scalars it is sure of that is the value
  // itself, whichever option it was. Options that copy (objects, arrays) or change a value
  // (`.trim()`) could parse it differently from the option this finds.
  if (!options.every((option) => SCALARS.has(defOf(option).type))) return NOT_SURE;
  const checksOfOptions = options.map(checkOf);
  if (checksOfOptions.includes(NOT_SURE)) return NOT_SURE;
  return (v) => checksOfOptions.some((check) => check(v));
}

/**
 * Each tag value's option, when every option's tag is a literal or an enum (as in our records):
 * one lookup instead of trying the tags in turn. The option's own check then judges the whole
 * object, its tag included; it is built when a value first has its tag (a turn's first
 * messages use a few of the message types, and building a check compiles a function).
 */
function tagTable(options: z.ZodType[], discriminator: string): Map<unknown, z.ZodType> | null {
  const table = new Map<unknown, z.ZodType>();
  for (const option of options) {
    const tag = defOf(option).shape?.[discriminator];
    if (tag === undefined) return null;
    const def = defOf(tag);
    if (def.checks?.length) return null;
    const values =
      def.type === "literal"
        ? def.values
        : def.type === "enum"
          ? Object.values(def.entries ?? {})
          : null;
    if (!values) return null;
    // zod takes the first option whose tag matches: so does this.
    for (const value of values) if (!table.has(value)) table.set(value, option);
  }
  return table;
}
