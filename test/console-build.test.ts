import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConsole, firstLoadAssets } from "./support/console-build.js";

const LIMIT_BYTES = 300 * 1024;

describe("the console's build", () => {
  const outDir = mkdtempSync(join(tmpdir(), "holdfast-console-"));
  beforeAll(() => buildConsole(outDir), 60_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("loads at most 300 KB of gzip-compressed JS and CSS on first load", () => {
    const assets = firstLoadAssets(outDir);
    expect(assets.some((a) => a.name.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.name.endsWith(".css"))).toBe(true);
    const total = assets.reduce((sum, a) => sum + a.gzip, 0);
    expect(total).toBeLessThanOrEqual(LIMIT_BYTES);
  });

  it("needs nothing from another origin: no CDN, it works offline from the server", () => {
    const index = readFileSync(join(outDir, "index.html"), "utf8");
    expect(index).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(index).toMatch(/src="\/console\/assets\/[^"]+\.js"/);
    for (const { name } of firstLoadAssets(outDir)) {
      const text = readFileSync(join(outDir, "assets", name), "utf8");
      expect(text, name).not.toMatch(/(import\s*\(|from\s*|url\()\s*["']https?:\/\//);
    }
  });
});
