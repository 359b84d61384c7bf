#!/usr/bin/env node
// The CLI runs the compiled code in dist/; `npm install` builds it (see the prepare script).
import { existsSync } from "node:fs";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  console.error("holdfast is not built yet: run `npm run build` (npm start does it for you)");
  process.exit(1);
}
await import(main.href);
