// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/, which bin/holdfast.js runs.
// Start-up is mostly module loading: 213 of our modules and zod's 95 took about 40% of the time
// to a first turn. Our modules and a few packages go into a few files (each command's modules in
// chunks loaded when it runs); every other package is left to node_modules, as it is with dist/,
// since some load native code or files next to themselves.
// Usage: node scripts/bundle-cli.mjs (npm run build runs it after tsc).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { builtinsByCall } from "./builtins-by-call.mjs";
import { escapeBeyondLatin1 } from "./latin1-source.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = `${root}dist/bundle`;
/**
 * zod's 95 modules were a fifth of start-up. The OpenAPI packages extend zod's prototypes, so
 * they go in with it: an extension made to node_modules' zod would not reach the bundled one.
 * Other packages that use zod only parse their own data with their own copy. sqlite-vec goes in
 * so that its import of `node:process` goes through builtinsByCall (as an ES import: 12 ms); so
 * does hono's Node adapter, whose ES import of `node:http` made Node load its undici (70 ms).
 */
const INLINED_PACKAGES =
  /^(zod|commander|hono|@hono\/(node-server|swagger-ui|zod-openapi|zod-validator)|@asteasolutions\/zod-to-openapi|sqlite-vec)(\/|$)/;

/** Relative and absolute paths are our modules (or files of an inlined package); keep the rest. */
function isExternal(id) {
  return !id.startsWith(".") && !id.startsWith("/") && !INLINED_PACKAGES.test(id);
}

/**
 * Modules find files next to themselves (package.json, the console, worker scripts) through
 * `import.meta.url`. In a bundle that is the chunk's URL, so each module's own location is
 * written in instead, relative to the chunk: dist/ stays in place beside the bundle.
 */
const keepModuleUrls = {
  name: "keep-module-urls",
  transform(code, id) {
    if (!code.includes("import.meta.url")) return null;
    const own = `new URL(${JSON.stringify(relative(outDir, id))}, import.meta.url).href`;
    return { code: code.replaceAll("import.meta.url", own), map: null };
  },
};

/**
 * The OpenAPI packages take zod's whole namespace, and with it every locale's error messages:
 * 400 KB of text, most of it outside Latin-1, so the chunk holding them was read, decoded and
 * kept as two bytes a character. The server's messages are zod's English ones (the default,
 * imported on its own); `z.locales` keeps English only.
 */
const englishZodOnly = {
  name: "english-zod-only",
  load(id) {
    if (!/[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/.test(id)) return null;
    return { code: 'export { default as en } from "./en.js";', map: null };
  },
};

const bundle = await rolldown({
  input: `${root}dist/cli/main.js`,
  platform: "node",
  external: isExternal,
  plugins: [keepModuleUrls, englishZodOnly, builtinsByCall],
  logLevel: "warn",
});
await bundle.write({
  dir: outDir,
  format: "esm",
  entryFileNames: "holdfast.mjs",
  chunkFileNames: "[name]-[hash].mjs",
  cleanDir: true,
  comments: false,
});
await bundle.close();
for (const name of readdirSync(outDir)) {
  if (!name.endsWith(".mjs")) continue;
  const path = join(outDir, name);
  writeFileSync(path, escapeBeyondLatin1(readFileSync(path, "utf8")));
}
