#!/usr/bin/env node
// The CLI runs the compiled code in dist/; `npm start` and `npm run build` build it.
import { existsSync } from "node:fs";

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 5)) {
  console.error(
    `holdfast needs Node.js 22.5 or newer (it uses node:sqlite); this is ${process.version}.\n` +
      "Run it through npm (npm start, npm run holdfast -- ...), which uses the project's pinned Node 24.",
  );
  process.exit(1);
}
const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  console.error("holdfast is not built yet: run `npm run build` (npm start does it for you)");
  process.exit(1);
}
await import(main.href);
