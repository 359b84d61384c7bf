import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/** The layers, highest first (README "Folder layout"). A file may import only its own layer or lower ones. */
const LAYERS = [
  "cli",
  "sim",
  "server",
  "observability",
  "service",
  "chains",
  "runtime",
  "config",
  "agent",
  "types",
  "tools",
  "memory",
  "llm",
  "storage",
  "records",
  "core",
];

const SRC = new URL("../src/", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const layerOf = (path: string) => relative(SRC, path).split("/")[0] ?? "";

/** Static imports and re-exports (`from "…"`) and dynamic ones (`import("…")`). */
const IMPORT = /(?:from\s+|import\s*\(\s*)"(\.[^"]+)"/g;

describe("layering", () => {
  it("knows every source folder's layer", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !LAYERS.includes(folder))).toEqual([]);
  });

  it("never lets a lower layer import a higher one, statically or dynamically", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = LAYERS.indexOf(layerOf(file));
      if (from === -1) continue;
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const target = join(file, "..", match[1] ?? "");
        const to = LAYERS.indexOf(layerOf(target));
        if (to !== -1 && to < from)
          violations.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });
});
