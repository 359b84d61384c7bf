// A rolldown plugin for scripts/bundle-cli.mjs: the bundle's imports of Node's built-in
// modules become `process.getBuiltinModule` calls, and those no command needs to start are
// loaded at first use. Tested by test/builtins-by-call.test.ts.
import { isBuiltin } from "node:module";

/**
 * An ES import of a built-in module copies every export into a module namespace, reading each
 * property: `node:fs` then loads Node's streams for its lazy `ReadStream`, `node:process` and
 * `node:util` cost 6–12 ms each here. `process.getBuiltinModule` hands over the module object
 * itself, and the destructuring reads only the names a chunk uses. Imports of built-ins are
 * rewritten so in each chunk rolldown writes (the imports sit at its top, in the shapes below).
 */
export const BUILTIN_IMPORT = /^import (.+?) from "([^"./][^"]*)";$/gm;

/**
 * Built-ins that no command needs to start (a shell, a worker, a DNS look-up, a prompt, a hash,
 * a file tool's promises): each took 2–13 ms to load. Their functions and classes are loaded at
 * first call (or `new`); a whole-module import, or an object it exports, is a proxy that loads
 * at its first property read.
 */
const LOADED_AT_FIRST_USE = new Set([
  "node:child_process",
  "node:worker_threads",
  "node:net",
  "node:dns",
  "node:readline/promises",
  "node:crypto",
  "node:fs/promises",
]);

export const HELPERS = `const __builtinAtFirstUse = (id, name) => new Proxy({}, {
  get: (_, key) => (name === undefined ? process.getBuiltinModule(id) : process.getBuiltinModule(id)[name])[key],
});
const __builtinFunctionAtFirstUse = (id, name) => function (...args) {
  const real = process.getBuiltinModule(id)[name];
  return new.target ? Reflect.construct(real, args) : real.apply(this, args);
};
`;

export function builtinImportAsCall(statement, clause, specifier) {
  if (!isBuiltin(specifier)) return statement;
  const id = specifier.startsWith("node:") ? specifier : `node:${specifier}`;
  const atFirstUse = LOADED_AT_FIRST_USE.has(id);
  const load = atFirstUse
    ? `__builtinAtFirstUse(${JSON.stringify(id)})`
    : `process.getBuiltinModule(${JSON.stringify(id)})`;
  const whole = clause.match(/^(?:\* as )?([\w$]+)(?:, \{(.*)\})?$/);
  const named = clause.match(/^\{(.*)\}$/);
  const names = whole ? whole[2] : named?.[1];
  if ((!whole && !named) || /\bdefault\b/.test(names ?? "")) {
    throw new Error(`bundle-cli: an import of ${specifier} in a shape not handled: ${statement}`);
  }
  const bindings = (names ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      const [exported, local = exported] = name.split(" as ");
      return { exported, local };
    });
  const statements = whole ? [`const ${whole[1]} = ${load};`] : [];
  for (const { exported, local } of bindings) {
    const args = `${JSON.stringify(id)}, ${JSON.stringify(exported)}`;
    const value = process.getBuiltinModule(id)[exported];
    statements.push(
      !atFirstUse
        ? `const ${local} = process.getBuiltinModule(${JSON.stringify(id)}).${exported};`
        : typeof value === "function"
          ? `const ${local} = __builtinFunctionAtFirstUse(${args});`
          : `const ${local} = __builtinAtFirstUse(${args});`,
    );
  }
  return statements.join("\n");
}

export const builtinsByCall = {
  name: "builtins-by-call",
  renderChunk(code) {
    const rewritten = code.replaceAll(BUILTIN_IMPORT, builtinImportAsCall);
    const helpers = rewritten.includes("AtFirstUse(") ? HELPERS : "";
    return { code: helpers + rewritten, map: null };
  },
};
