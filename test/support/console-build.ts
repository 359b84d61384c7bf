import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const VITE = fileURLToPath(new URL("../../node_modules/vite/bin/vite.js", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../console/vite.config.ts", import.meta.url));

/** Builds the console as `npm run build` does, into `outDir` (so tests never race dist/). */
export function buildConsole(outDir: string): void {
  execFileSync(process.execPath, [VITE, "build", "--config", CONFIG], {
    env: { ...process.env, HOLDFAST_CONSOLE_OUT: outDir },
    stdio: "pipe",
  });
}

/** The JS and CSS a first load fetches: what index.html names, and every chunk in assets/. */
export function firstLoadAssets(outDir: string): { name: string; bytes: number; gzip: number }[] {
  const assets = join(outDir, "assets");
  return readdirSync(assets)
    .filter((name) => /\.(js|css)$/.test(name))
    .map((name) => {
      const content = readFileSync(join(assets, name));
      return { name, bytes: content.length, gzip: gzipSync(content).length };
    });
}
