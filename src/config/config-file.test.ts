import { describe, expect, it } from "vitest";
import type { FieldError } from "../core/errors.js";
import { checkConfig } from "./config-file.js";

function errorsOf(document: unknown): FieldError[] {
  const result = checkConfig(document);
  if (result.ok) throw new Error("expected the config to be rejected");
  return result.errors;
}

function configOf(document: unknown) {
  const result = checkConfig(document);
  if (!result.ok) throw new Error(`expected a valid config: ${JSON.stringify(result.errors)}`);
  return result.config;
}

describe("config files", () => {
  it("resolves a type that extends a built-in: lists replace, sections merge field by field", () => {
    const { registry } = configOf({
      types: {
        careful_memgpt: {
          extends: "memgpt_agent",
          description: "memgpt that never archives",
          tools: { deny: ["archival_memory_insert"] },
          limits: { max_tool_calls_per_turn: 3 },
        },
      },
    });
    const type = registry.get("careful_memgpt");
    const base = registry.get("memgpt_agent");
    expect(type?.tools.deny).toEqual(["archival_memory_insert"]);
    expect(type?.tools.packs).toEqual(base?.tools.packs);
    expect(type?.limits).toEqual({ ...base?.limits, max_tool_calls_per_turn: 3 });
    expect(type?.heartbeats).toBe(true);
  });

  it("puts defaults under every type, built-ins included, without beating their own values", () => {
    const { registry } = configOf({
      defaults: { model: "openai/gpt-4.1-mini", limits: { max_iterations: 7 } },
      types: { plain: { description: "defaults only" } },
    });
    expect(registry.get("plain")?.model).toBe("openai/gpt-4.1-mini");
    expect(registry.get("plain")?.limits.max_iterations).toBe(7);
    expect(registry.get("memgpt_agent")?.model).toBe("openai/gpt-4.1-mini");
    expect(registry.get("memgpt_agent")?.limits.max_iterations).toBe(5);
  });

  it("accepts the execution modes as aliases of the control flow", () => {
    const { registry } = configOf({
      types: {
        one: { control_flow: "single" },
        chat: { control_flow: "multi" },
        agentic: { control_flow: "autonomous" },
      },
    });
    expect(registry.get("one")).toMatchObject({
      control_flow: "single_shot",
      include_history: false,
    });
    expect(registry.get("chat")).toMatchObject({
      control_flow: "single_shot",
      include_history: true,
    });
    expect(registry.get("agentic")).toMatchObject({ control_flow: "iterating" });
  });

  it("rejects an alias that contradicts include_history", () => {
    expect(errorsOf({ types: { one: { control_flow: "single", include_history: true } } })).toEqual(
      [{ path: "types.one.include_history", message: expect.stringContaining("without history") }],
    );
  });

  it("names the full path of an unknown field, at any depth", () => {
    expect(errorsOf({ types: { r: { tools: { alow: ["read_file"] } } } })).toEqual([
      { path: "types.r.tools.alow", message: "unknown field" },
    ]);
    expect(errorsOf({ typos: {} })).toEqual([{ path: "typos", message: "unknown field" }]);
    expect(
      errorsOf({ defaults: { memory: { blocks: [{ label: "x", limit: 5, colour: 1 }] } } }),
    ).toEqual([{ path: "defaults.memory.blocks.0.colour", message: "unknown field" }]);
  });

  it("says what replaced a removed field such as iteration_strategy", () => {
    const [error, ...rest] = errorsOf({
      types: { old: { iteration_strategy: "native-thinking" } },
    });
    expect(rest).toEqual([]);
    expect(error?.path).toBe("types.old.iteration_strategy");
    expect(error?.message).toMatch(/removed.*control_flow.*model/);
  });

  it("rejects an extends of a type that does not exist, listing the known ones", () => {
    expect(errorsOf({ types: { child: { extends: "ghost" } } })).toEqual([
      {
        path: "types.child.extends",
        message: expect.stringMatching(/unknown type 'ghost'.*memgpt_agent/),
      },
    ]);
  });

  it("reports a cycle of extends once for each type in it, not for types below it", () => {
    const errors = errorsOf({
      types: { a: { extends: "b" }, b: { extends: "a" }, below: { extends: "a" } },
    });
    expect(errors).toEqual([
      { path: "types.a.extends", message: "extends cycle: a → b → a" },
      { path: "types.b.extends", message: "extends cycle: b → a → b" },
    ]);
    expect(errorsOf({ types: { me: { extends: "me" } } })).toEqual([
      { path: "types.me.extends", message: "extends cycle: me → me" },
    ]);
  });

  it("reports every problem of a file at once", () => {
    const errors = errorsOf({
      server: { port: "eighty", durability: "sometimes" },
      types: {
        a: { extends: "missing" },
        b: { iteration_strategy: "langchain" },
        c: { extends: "d" },
        d: { extends: "c" },
        e: { extends: "b" },
      },
    });
    expect(errors.map((error) => error.path).sort()).toEqual([
      "server.durability",
      "server.port",
      "types.a.extends",
      "types.b.iteration_strategy",
      "types.c.extends",
      "types.d.extends",
    ]);
  });

  it("rejects unknown tools and packs where they are named", () => {
    const errors = errorsOf({
      tool_packs: { mine: ["read_file", "teleport"] },
      types: { t: { tools: { packs: ["mine", "nope"], allow: ["fly"] } } },
    });
    expect(errors).toEqual([
      { path: "tool_packs.mine.1", message: "unknown tool 'teleport'" },
      {
        path: "types.t.tools.packs.1",
        message: expect.stringContaining("unknown tool pack 'nope'"),
      },
      { path: "types.t.tools.allow.0", message: "unknown tool 'fly'" },
    ]);
  });

  it("adds the file's tool packs to the catalogue for its types", () => {
    const config = configOf({
      tool_packs: { reading: ["read_file", "web_fetch"] },
      types: { reader: { tools: { packs: ["reading"], access: "read_only" } } },
    });
    expect(config.catalogue.packs.get("reading")).toEqual(["read_file", "web_fetch"]);
  });

  it("refuses to redefine a built-in type or pack", () => {
    expect(errorsOf({ types: { verifier: {} }, tool_packs: { web: ["web_fetch"] } })).toEqual([
      { path: "tool_packs.web", message: expect.stringContaining("built-in pack") },
      { path: "types.verifier", message: expect.stringContaining("extends: verifier") },
    ]);
  });

  it("rejects bad names, bad values, and a block value longer than its limit", () => {
    const errors = errorsOf({
      types: {
        "Bad Name": {},
        t: {
          model: "gpt-4",
          tools: { access: "everything" },
          memory: { blocks: [{ label: "human", value: "too long", limit: 3 }] },
          limits: { max_iterations: 0 },
        },
      },
    });
    expect(errors.map((error) => error.path)).toEqual([
      "types.Bad Name",
      "types.t.model",
      "types.t.tools.access",
      "types.t.memory.blocks.0.value",
      "types.t.limits.max_iterations",
    ]);
  });
});

describe("provider limits", () => {
  it("reads providers.NAME.limits into camelCase, leaving unset limits out (unlimited)", () => {
    const config = configOf({
      providers: {
        openai: { limits: { concurrent: 5, requests_per_minute: 500 } },
        ollama: { limits: { tokens_per_minute: 100000 } },
      },
    });
    expect(config.providers.openai?.limits).toEqual({ concurrent: 5, requestsPerMinute: 500 });
    expect(config.providers.ollama?.limits).toEqual({ tokensPerMinute: 100000 });
    expect(config.providers.anthropic).toBeUndefined();
  });

  it("rejects an unknown limit and a limit below one, with the field's path", () => {
    expect(
      errorsOf({ providers: { anthropic: { limits: { concurent: 5, tokens_per_minute: 0 } } } }),
    ).toEqual([
      { path: "providers.anthropic.limits.tokens_per_minute", message: expect.any(String) },
      { path: "providers.anthropic.limits.concurent", message: "unknown field" },
    ]);
  });
});
