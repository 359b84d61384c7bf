import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/** The layers, highest first (README "Folder layout"). A file may import only its own layer or lower ones. */
const LAYERS = [
  "cli",
  "sim",
  "server",
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

describe("layering", () => {
  it("never lets a lower layer import a higher one", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = LAYERS.indexOf(layerOf(file));
      if (from === -1) continue;
      for (const match of readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)) {
        const target = join(file, "..", match[1] ?? "");
        const to = LAYERS.indexOf(layerOf(target));
        if (to !== -1 && to < from)
          violations.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });
});
