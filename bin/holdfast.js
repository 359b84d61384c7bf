#!/usr/bin/env node
// The CLI runs the compiled code in dist/; `npm start` and `npm run build` build it.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 5)) {
  console.error(
    `holdfast needs Node.js 22.5 or newer (it uses node:sqlite); this is ${process.version}.\n` +
      "Run it through npm (npm start, npm run holdfast -- ...), which uses the project's pinned Node 24.",
  );
  process.exit(1);
}
// Not `import … from "node:fs"`: an ES import of node:fs loads Node's streams (20 ms here).
const { existsSync, statSync } = process.getBuiltinModule("node:fs");
const nodeModule = process.getBuiltinModule("node:module");
const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  console.error("holdfast is not built yet: run `npm run build` (npm start does it for you)");
  process.exit(1);
}
// The bundle (scripts/bundle-cli.mjs) starts faster; a dist/ compiled after it is newer code.
const bundle = new URL("../dist/bundle/holdfast.mjs", import.meta.url);
const bundleIsCurrent = existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(main).mtimeMs;
// V8 keeps compiled code in the OS's temporary directory: later starts skip compiling.
nodeModule.enableCompileCache?.();
await import((bundleIsCurrent ? bundle : main).href);
