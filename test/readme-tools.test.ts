import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { builtinConfig } from "../src/config/config-file.js";
import { NO_SEARCH_PROVIDER } from "../src/config/web-section.js";
import { BUILTIN_PACKS } from "../src/tools/catalogue.js";
import { effectiveCapabilities } from "../src/types/capabilities.js";

// Issue #12, "Proof": the README's tool tables match the code. They are read here and compared
// with the catalogue and with capabilities, so that a change to either shows up as a failure.

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const config = builtinConfig();

/** The rows of the first table after `heading`, as lists of cells. */
function tableAfter(heading: string): string[][] {
  const from = README.indexOf(heading);
  expect(from, heading).toBeGreaterThanOrEqual(0);
  const lines = README.slice(from).split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");

/** `core_memory_append/replace, memory_insert` → the tool names, parentheses left out. */
function toolNames(cell: string): string[] {
  return cell
    .replace(/\([^)]*\)/g, "")
    .split(/[,;]/)
    .map((item) => item.trim())
    .filter((item) => item !== "")
    .flatMap((item) => {
      const [first = "", ...rest] = item.split("/");
      const stem = first.slice(0, first.lastIndexOf("_") + 1);
      return [first, ...rest.map((suffix) => `${stem}${suffix}`)];
    });
}

describe("the README's tool tables", () => {
  it("list every built-in pack with exactly its tools", () => {
    const rows = tableAfter("## Tools\n");
    for (const [packs = "", tools = ""] of rows) {
      const fromCode = new Set(
        backticked(packs).flatMap((pack) => BUILTIN_PACKS[pack] ?? [`?${pack}`]),
      );
      expect(new Set(toolNames(tools)), packs).toEqual(fromCode);
    }
    const named = new Set(rows.flatMap((row) => row.flatMap(backticked)));
    expect([...Object.keys(BUILTIN_PACKS)].filter((pack) => !named.has(pack))).toEqual([]);
  });

  it("give each web tool its pack and risk as declared", () => {
    const rows = tableAfter("### Web tools\n");
    expect(rows.map(([tool = ""]) => backticked(tool)[0])).toEqual([
      "web_search",
      "web_fetch",
      "http_request",
    ]);
    for (const [tool = "", pack = "", risk = ""] of rows) {
      const name = backticked(tool)[0] ?? "";
      expect(BUILTIN_PACKS[backticked(pack)[0] ?? ""], name).toContain(name);
      expect(config.catalogue.tools.get(name)?.risk, name).toBe(risk);
    }
    expect(README.replace(/\s+/g, " ")).toContain(NO_SEARCH_PROVIDER);
  });

  it("name, for each built-in type listed by tool, the tools its capabilities give it", () => {
    for (const [types = "", , tools = ""] of tableAfter("### Built-in types\n")) {
      const listed = tools === "none" ? [] : toolNames(tools);
      // Rows that summarise by pack ("files, shell, web") are not lists of tools.
      if (!listed.every((name) => config.catalogue.tools.has(name))) continue;
      for (const name of backticked(types)) {
        const type = config.registry.get(name);
        if (!type) throw new Error(`README lists unknown type ${name}`);
        const caps = effectiveCapabilities(type, {}, config.catalogue);
        // A tool the server cannot run here (no search provider) still belongs to the type.
        const serverless = caps.withheld.filter(
          (t) => config.catalogue.unavailable.get(t.name) === t.reason,
        );
        expect(new Set(listed), name).toEqual(
          new Set([...caps.offered, ...serverless].map((t) => t.name)),
        );
      }
    }
  });
});
