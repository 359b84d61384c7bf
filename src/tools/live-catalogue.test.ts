import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinToolCatalogue } from "./catalogue.js";
import { LiveToolCatalogue, NOT_IMPLEMENTED } from "./live-catalogue.js";
import { builtinToolImplementations } from "./registry.js";
import { implementTool, success } from "./tool.js";
import { defineTool } from "./tool-declaration.js";

const toolNamed = (name: string) =>
  implementTool(
    defineTool({ name, description: name, parameters: z.object({}), risk: "read" }),
    { idempotent: true },
    async () => success(name),
  );

describe("the live tool catalogue", () => {
  const builtin = [...builtinToolImplementations(null).values()];

  it("marks a declared tool nothing runs as unavailable, with the reason", () => {
    const catalogue = new LiveToolCatalogue(builtinToolCatalogue(), builtin);
    for (const name of catalogue.tools.keys()) {
      if (!catalogue.runnable.has(name)) expect(catalogue.unavailable.get(name)).toBeDefined();
    }
    expect(catalogue.unavailable.get("spawn_agent")).toBe(NOT_IMPLEMENTED);
  });

  it("adds a source's tools as its pack, leaves out names already taken, and counts changes", () => {
    const catalogue = new LiveToolCatalogue(builtinToolCatalogue(), builtin);
    const start = catalogue.version;
    catalogue.setSource("mcp:a", [toolNamed("ping"), toolNamed("read_file")]);
    catalogue.setSource("mcp:b", [toolNamed("ping"), toolNamed("pong")]);
    expect(catalogue.packs.get("mcp:a")).toEqual(["ping"]);
    expect(catalogue.conflicts("mcp:a")).toEqual(["read_file"]);
    expect(catalogue.packs.get("mcp:b")).toEqual(["pong"]);
    expect(catalogue.runnable.get("ping")).toBeDefined();
    catalogue.removeSource("mcp:a");
    expect(catalogue.packs.get("mcp:b")).toEqual(["ping", "pong"]);
    expect(catalogue.version).toBe(start + 3);
  });
});
