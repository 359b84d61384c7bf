import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { typeArbitraries } from "../../test/support/type-arbitraries.js";
import { createToolCatalogue, type ToolCatalogue, withUnavailable } from "../tools/catalogue.js";
import { defineTool, type ToolDeclaration } from "../tools/tool-declaration.js";
import type { AgentType } from "./agent-type.js";
import { APPROVAL_ORDER, TOOL_ACCESS_ORDER } from "./axes.js";
import { checkToolCall, effectiveCapabilities } from "./capabilities.js";
import type { EffectiveCapabilities } from "./capabilities-schema.js";
import type { AgentOverrides } from "./overrides.js";

const RISKS = ["read", "write", "exec", "network"] as const;
const REQUIREMENTS = [
  "heartbeat",
  "core_memory",
  "archival_memory",
  "conversation_search",
] as const;
/** Real tools keep their real requirement, so that `requires` is exercised by name too. */
const REAL_TOOLS: Record<string, ToolDeclaration["requires"]> = {
  pause_heartbeats: "heartbeat",
  core_memory_append: "core_memory",
  archival_memory_search: "archival_memory",
  conversation_search: "conversation_search",
};
const TOOL_NAMES = [...Array.from({ length: 12 }, (_, i) => `t${i}`), ...Object.keys(REAL_TOOLS)];
/** Names a type may mention although no catalogue declares them. */
const NAMES = [...TOOL_NAMES, "ghost", "missing_tool"];
const PACK_NAMES = ["p0", "p1", "p2", "p3"];
const RUNS = { numRuns: 400 };

interface CatalogueSpec {
  tools: ToolDeclaration[];
  packs: Record<string, string[]>;
  /** Tools the server cannot run (the shell without a sandbox). */
  unavailable: string[];
}

const toolArb = (name: string): fc.Arbitrary<ToolDeclaration> =>
  fc
    .record({
      risk: fc.constantFrom(...RISKS),
      requires:
        name in REAL_TOOLS
          ? fc.constant(REAL_TOOLS[name])
          : fc.option(fc.constantFrom(...REQUIREMENTS), { nil: undefined }),
    })
    .map(({ risk, requires }) =>
      defineTool({
        name,
        description: `tool ${name}`,
        parameters: z.object({}),
        risk,
        ...(requires === undefined ? {} : { requires }),
      }),
    );

const catalogueArb: fc.Arbitrary<CatalogueSpec> = fc
  .uniqueArray(fc.constantFrom(...TOOL_NAMES), { minLength: 4, maxLength: TOOL_NAMES.length })
  .chain((names) =>
    fc.record({
      tools: fc.tuple(...names.map(toolArb)),
      packs: fc.dictionary(fc.constantFrom(...PACK_NAMES), fc.subarray(names), { maxKeys: 4 }),
      unavailable: fc.subarray(names, { maxLength: 2 }),
    }),
  );

const { typeArb, overridesArb } = typeArbitraries({
  names: NAMES,
  packs: [...PACK_NAMES, "no_such_pack"],
  typeNames: ["worker", "memgpt_agent", "a-1"],
  roots: ["/work", "/work/a", "/elsewhere", "rel", "../up"],
  maxSpawnDepth: 16,
  commonWeight: 6,
});

const build = (spec: CatalogueSpec): ToolCatalogue =>
  spec.unavailable.reduce(
    (catalogue, name) => withUnavailable(catalogue, name, "no sandbox on this server"),
    createToolCatalogue(spec.tools, spec.packs),
  );
const offeredNames = (caps: EffectiveCapabilities) => caps.offered.map((tool) => tool.name);
const accessRank = (level: string) =>
  TOOL_ACCESS_ORDER.indexOf(level as AgentType["tools"]["access"]);
const approvalRank = (policy: string) =>
  APPROVAL_ORDER.indexOf(policy as AgentType["tools"]["approval"]);

/** Runs a property over a random catalogue, type and overrides. */
function forAll(
  check: (
    caps: EffectiveCapabilities,
    type: AgentType,
    overrides: AgentOverrides,
    catalogue: ToolCatalogue,
  ) => void,
): void {
  fc.assert(
    fc.property(catalogueArb, typeArb, overridesArb, (spec, type, overrides) => {
      const catalogue = build(spec);
      check(effectiveCapabilities(type, overrides, catalogue), type, overrides, catalogue);
    }),
    RUNS,
  );
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

describe("effectiveCapabilities (properties)", () => {
  it("never offers a tool that the type or the agent denies, even if allowed", () => {
    forAll((caps, type, overrides) => {
      const denied = new Set([...type.tools.deny, ...(overrides.tools?.deny ?? [])]);
      for (const name of offeredNames(caps)) expect(denied.has(name)).toBe(false);
    });
  });

  it("offers nothing when access is none on the type or the agent, or the type is single_shot", () => {
    forAll((caps, type, overrides) => {
      const none = type.tools.access === "none" || overrides.tools?.access === "none";
      if (none || type.control_flow === "single_shot") expect(caps.offered).toEqual([]);
      if (none) expect(caps.access).toBe("none");
    });
  });

  it("offers only read tools under read_only access or read-only isolation", () => {
    forAll((caps, type, overrides) => {
      const readOnly =
        type.tools.access === "read_only" ||
        overrides.tools?.access === "read_only" ||
        type.isolation.read_only ||
        overrides.isolation?.read_only === true;
      if (readOnly) for (const tool of caps.offered) expect(tool.risk).toBe("read");
      if (type.isolation.read_only) expect(caps.isolation.read_only).toBe(true);
    });
  });

  it("never lets overrides widen past the type's ceiling", () => {
    const allowedRisk: Record<string, readonly string[]> = {
      none: [],
      read_only: ["read"],
      constrained: ["read", "write"],
      full: RISKS,
    };
    forAll((caps, type, overrides) => {
      for (const tool of caps.offered) {
        expect(type.tools.deny).not.toContain(tool.name);
        if (type.tools.allow !== null) expect(type.tools.allow).toContain(tool.name);
        const own = overrides.tools?.allow;
        if (own) expect(own).toContain(tool.name);
        expect(allowedRisk[type.tools.access]).toContain(tool.risk);
        expect(allowedRisk[caps.access]).toContain(tool.risk);
      }
      expect(accessRank(caps.access)).toBeLessThanOrEqual(accessRank(type.tools.access));
      for (const key of Object.keys(type.limits) as (keyof AgentType["limits"])[]) {
        expect(caps.limits[key]).toBeLessThanOrEqual(type.limits[key]);
        const own = overrides.limits?.[key];
        if (own !== undefined) expect(caps.limits[key]).toBeLessThanOrEqual(own);
      }
      if (!type.heartbeats) expect(caps.heartbeats).toBe(false);
      if (!type.memory.archival) expect(caps.memory.archival).toBe(false);
      if (!type.memory.conversation_search) expect(caps.memory.conversation_search).toBe(false);
      if (!type.isolation.network) expect(caps.isolation.network).toBe(false);
      if (overrides.isolation?.network === false) expect(caps.isolation.network).toBe(false);
    });
  });

  it("withholds what the server cannot run from what it would offer, with the server's reason", () => {
    forAll((caps, type, overrides, catalogue) => {
      const anywhere = { ...catalogue, unavailable: new Map<string, string>() };
      const wouldOffer = effectiveCapabilities(type, overrides, anywhere).offered;
      expect(caps.offered).toEqual(wouldOffer.filter((t) => !catalogue.unavailable.has(t.name)));
      for (const tool of wouldOffer) {
        const reason = catalogue.unavailable.get(tool.name);
        if (reason) expect(caps.withheld).toContainEqual({ name: tool.name, reason });
      }
    });
  });

  it("never adds a tool by adding narrowing overrides on top of the same packs and include", () => {
    forAll((caps, type, overrides, catalogue) => {
      const tools: NonNullable<AgentOverrides["tools"]> = {};
      if (overrides.tools?.packs) tools.packs = overrides.tools.packs;
      if (overrides.tools?.include) tools.include = overrides.tools.include;
      const wider = new Set(offeredNames(effectiveCapabilities(type, { tools }, catalogue)));
      for (const name of offeredNames(caps)) expect(wider.has(name)).toBe(true);
    });
  });

  it("offers heartbeat tools only when the type has heartbeats on and the agent keeps them", () => {
    forAll((caps, type, overrides, catalogue) => {
      for (const tool of caps.offered) {
        if (catalogue.tools.get(tool.name)?.requires !== "heartbeat") continue;
        expect(type.heartbeats).toBe(true);
        expect(overrides.heartbeats).not.toBe(false);
        expect(caps.heartbeats).toBe(true);
      }
    });
  });

  it("allows a call exactly when the tool is offered", () => {
    const anyName = fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(catalogueArb, typeArb, overridesArb, anyName, (spec, type, overrides, name) => {
        const caps = effectiveCapabilities(type, overrides, build(spec));
        const offered = offeredNames(caps);
        expect(checkToolCall(caps, name).allowed).toBe(offered.includes(name));
        for (const tool of caps.offered) {
          const check = checkToolCall(caps, tool.name);
          expect(check.allowed).toBe(true);
          if (check.allowed) expect(check.grant).toEqual(tool);
        }
      }),
      RUNS,
    );
  });

  it("never asks approval for read tools and is never looser than the type's approval", () => {
    forAll((caps, type, overrides) => {
      for (const tool of caps.offered) {
        if (tool.risk === "read") expect(tool.approval).toBe("never");
        else {
          expect(approvalRank(tool.approval)).toBeGreaterThanOrEqual(
            approvalRank(type.tools.approval),
          );
          const own = overrides.tools?.approval ?? "never";
          expect(approvalRank(tool.approval)).toBeGreaterThanOrEqual(approvalRank(own));
        }
      }
    });
  });

  it("gives the same answer twice and does not change its inputs", () => {
    fc.assert(
      fc.property(catalogueArb, typeArb, overridesArb, (spec, type, overrides) => {
        const catalogue = build(spec);
        const before = structuredClone({ type, overrides, catalogue });
        const first = effectiveCapabilities(deepFreeze(type), deepFreeze(overrides), catalogue);
        const second = effectiveCapabilities(type, overrides, catalogue);
        expect(second).toEqual(first);
        expect({ type, overrides, catalogue }).toEqual(before);
      }),
      RUNS,
    );
  });

  it("accounts for every tool named by packs or include exactly once, offered or withheld", () => {
    forAll((caps, type, overrides, catalogue) => {
      const named = new Set<string>();
      for (const pack of [...type.tools.packs, ...(overrides.tools?.packs ?? [])]) {
        for (const name of catalogue.packs.get(pack) ?? []) named.add(name);
      }
      for (const name of [...type.tools.include, ...(overrides.tools?.include ?? [])])
        named.add(name);
      const seen = [...offeredNames(caps), ...caps.withheld.map((tool) => tool.name)];
      expect(seen.length).toBe(new Set(seen).size);
      expect(new Set(seen)).toEqual(named);
      for (const tool of caps.withheld) expect(tool.reason.length).toBeGreaterThan(0);
    });
  });
});
