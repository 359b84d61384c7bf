import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { typeArbitraries } from "../../test/support/type-arbitraries.js";
import { builtinConfig } from "../config/config-file.js";
import type { AgentType } from "./agent-type.js";
import {
  APPROVAL_ORDER,
  PolicyProfile,
  stricterApproval,
  TOOL_ACCESS_ORDER,
  type ToolAccess,
} from "./axes.js";
import { effectiveCapabilities } from "./capabilities.js";
import type { EffectiveCapabilities } from "./capabilities-schema.js";
import { childOverrides } from "./child-policy.js";
import { AgentOverrides } from "./overrides.js";
import { approvalFor } from "./tool-filter.js";

const { catalogue, registry } = builtinConfig();
const TOOL_NAMES = [...catalogue.tools.keys()];
/** Names a type may mention although the catalogue declares no such tool. */
const NAMES = [...TOOL_NAMES, "ghost"];
const PACK_NAMES = [...catalogue.packs.keys()];
const RUNS = { numRuns: 200 };
const RISKS_BY_ACCESS: Record<ToolAccess, readonly string[]> = {
  none: [],
  read_only: ["read"],
  constrained: ["read", "write"],
  full: ["read", "write", "exec", "network"],
};

const { typeArb: randomTypeArb, overridesArb } = typeArbitraries({
  names: NAMES,
  packs: PACK_NAMES,
  typeNames: ["worker", "helper", "a-1"],
  roots: ["/work", "/work/a", "rel"],
  maxSpawnDepth: 4,
  commonWeight: 5,
});

/** A built-in type as registered, or a random one over the built-in tools and packs. */
const typeArb = fc.oneof(fc.constantFrom(...registry.list()), randomTypeArb);

interface Agent {
  type: AgentType;
  overrides: AgentOverrides;
  capabilities: EffectiveCapabilities;
}

const agent = (type: AgentType, overrides: AgentOverrides): Agent => ({
  type,
  overrides,
  capabilities: effectiveCapabilities(type, overrides, catalogue),
});
const offeredNames = (caps: EffectiveCapabilities) => caps.offered.map((tool) => tool.name);
const accessRank = (level: ToolAccess) => TOOL_ACCESS_ORDER.indexOf(level);
const approvalRank = (policy: AgentType["tools"]["approval"]) => APPROVAL_ORDER.indexOf(policy);
const profileRank = (level: PolicyProfile) => PolicyProfile.options.indexOf(level);
function builtin(name: string): AgentType {
  const type = registry.get(name);
  if (!type) throw new Error(`no built-in type '${name}'`);
  return type;
}

/** What the parent denies by name: the deny lists, and the allow lists (`null`: no list). */
function deniedBy(parent: Agent): { deny: Set<string>; allows: (readonly string[])[] } {
  const own = parent.overrides.tools ?? {};
  const allows = [parent.type.tools.allow, own.allow ?? null].filter((list) => list !== null);
  return { deny: new Set([...parent.type.tools.deny, ...(own.deny ?? [])]), allows };
}

/** The parent's own approval policy, before the profile and the tool's risk are applied. */
const parentApproval = (parent: Agent) =>
  stricterApproval(parent.type.tools.approval, parent.overrides.tools?.approval ?? "never");

/** Runs a property over a random parent (type and overrides) and a random child type. */
function forTriples(check: (parent: Agent, child: Agent) => void): void {
  fc.assert(
    fc.property(typeArb, overridesArb, typeArb, (parentType, parentOverrides, childType) => {
      const parent = agent(parentType, parentOverrides);
      check(parent, agent(childType, childOverrides(parent)));
    }),
    RUNS,
  );
}

describe("childOverrides (properties)", () => {
  it("offers the child no tool its parent's type or overrides deny", () => {
    forTriples((parent, child) => {
      const { deny } = deniedBy(parent);
      for (const name of offeredNames(child.capabilities)) expect(deny.has(name)).toBe(false);
    });
  });

  it("offers the child no tool outside its parent's allow lists", () => {
    forTriples((parent, child) => {
      const { allows } = deniedBy(parent);
      for (const name of offeredNames(child.capabilities)) {
        for (const allow of allows) expect(allow).toContain(name);
      }
    });
  });

  it("gives the child no wider access than its parent, nor read-write or network it lacks", () => {
    forTriples((parent, child) => {
      const caps = child.capabilities;
      const parentCaps = parent.capabilities;
      expect(accessRank(caps.access)).toBeLessThanOrEqual(accessRank(parentCaps.access));
      for (const tool of caps.offered) {
        expect(RISKS_BY_ACCESS[parentCaps.access]).toContain(tool.risk);
        if (parentCaps.isolation.read_only) expect(tool.risk).toBe("read");
      }
      if (parentCaps.isolation.read_only) expect(caps.isolation.read_only).toBe(true);
      if (!parentCaps.isolation.network) expect(caps.isolation.network).toBe(false);
    });
  });

  it("asks approval of every tool the child is offered at least as often as the parent would", () => {
    forTriples((parent, child) => {
      const policy = parentApproval(parent);
      const parentProfile = parent.capabilities.policy_profile;
      expect(profileRank(child.capabilities.policy_profile)).toBeGreaterThanOrEqual(
        profileRank(parentProfile),
      );
      for (const grant of child.capabilities.offered) {
        const tool = catalogue.tools.get(grant.name);
        expect(tool).toBeDefined();
        if (!tool) continue;
        expect(approvalRank(grant.approval)).toBeGreaterThanOrEqual(
          approvalRank(approvalFor(tool, policy, parentProfile)),
        );
      }
    });
  });

  it("lets the child spawn one level less than its parent and keeps its other limits", () => {
    forTriples((parent, child) => {
      const below = Math.max(0, parent.capabilities.limits.max_spawn_depth - 1);
      const own = child.type.limits;
      expect(child.capabilities.limits).toEqual({
        ...own,
        max_spawn_depth: Math.min(own.max_spawn_depth, below),
      });
    });
  });

  it("requires intent of the child when the parent requires it", () => {
    forTriples((parent, child) => {
      if (parent.capabilities.intent_required) {
        expect(child.capabilities.intent_required).toBe(true);
      }
    });
  });

  it("leaves the child its own model, prompt, memory and workspace", () => {
    forTriples((_parent, child) => {
      const { model, system_prompt, memory, heartbeats, isolation } = child.overrides;
      expect({ model, system_prompt, memory, heartbeats }).toEqual({});
      expect(isolation?.workspace_root).toBeUndefined();
      const alone = effectiveCapabilities(child.type, {}, catalogue);
      expect(child.capabilities.model).toBe(alone.model);
      expect(child.capabilities.memory).toEqual(alone.memory);
      expect(child.capabilities.heartbeats).toBe(alone.heartbeats);
      expect(child.capabilities.isolation.workspace_root).toBe(alone.isolation.workspace_root);
    });
  });

  it("withholds from the child only what the parent denies, not what it does not offer", () => {
    forTriples((parent, child) => {
      const { deny, allows } = deniedBy(parent);
      const parentCaps = parent.capabilities;
      const offered = new Set(offeredNames(child.capabilities));
      for (const tool of effectiveCapabilities(child.type, {}, catalogue).offered) {
        const denied =
          deny.has(tool.name) ||
          allows.some((allow) => !allow.includes(tool.name)) ||
          !RISKS_BY_ACCESS[parentCaps.access].includes(tool.risk) ||
          (parentCaps.isolation.read_only && tool.risk !== "read");
        expect(offered.has(tool.name)).toBe(!denied);
      }
    });
  });

  it("makes valid AgentOverrides", () => {
    forTriples((_parent, child) => {
      expect(AgentOverrides.parse(child.overrides)).toEqual(child.overrides);
    });
  });

  it("narrowing twice changes nothing more: a grandchild never gets what the child's policy withholds", () => {
    fc.assert(
      fc.property(
        typeArb,
        overridesArb,
        typeArb,
        typeArb,
        (parentType, parentOverrides, childType, grandchildType) => {
          const parent = agent(parentType, parentOverrides);
          const child = agent(childType, childOverrides(parent));
          const once = agent(grandchildType, child.overrides).capabilities;
          const twice = agent(grandchildType, childOverrides(child)).capabilities;
          expectNoWider(twice, once);
          const { deny, allows } = deniedBy(parent);
          for (const name of offeredNames(twice)) {
            expect(deny.has(name)).toBe(false);
            for (const allow of allows) expect(allow).toContain(name);
          }
          expect(twice.limits.max_spawn_depth).toBeLessThanOrEqual(
            Math.max(0, child.capabilities.limits.max_spawn_depth - 1),
          );
        },
      ),
      RUNS,
    );
  });

  it("narrowing a child of the parent's own type again changes only the spawn depth", () => {
    fc.assert(
      fc.property(typeArb, overridesArb, (type, overrides) => {
        const parent = agent(type, overrides);
        const once = childOverrides(parent);
        const twice = childOverrides(agent(type, once));
        const depth = parent.capabilities.limits.max_spawn_depth;
        expect(once.limits?.max_spawn_depth).toBe(Math.max(0, depth - 1));
        expect(twice).toEqual({ ...once, limits: { max_spawn_depth: Math.max(0, depth - 2) } });
      }),
      RUNS,
    );
  });
});

/** Every way `narrow` could be wider than `wide`: tools, access, approvals, switches, depth. */
function expectNoWider(narrow: EffectiveCapabilities, wide: EffectiveCapabilities): void {
  const grants = new Map(wide.offered.map((tool) => [tool.name, tool]));
  for (const tool of narrow.offered) {
    const wider = grants.get(tool.name);
    expect(wider).toBeDefined();
    if (wider)
      expect(approvalRank(tool.approval)).toBeGreaterThanOrEqual(approvalRank(wider.approval));
  }
  expect(accessRank(narrow.access)).toBeLessThanOrEqual(accessRank(wide.access));
  expect(profileRank(narrow.policy_profile)).toBeGreaterThanOrEqual(
    profileRank(wide.policy_profile),
  );
  if (wide.isolation.read_only) expect(narrow.isolation.read_only).toBe(true);
  if (!wide.isolation.network) expect(narrow.isolation.network).toBe(false);
  if (wide.intent_required) expect(narrow.intent_required).toBe(true);
  expect(narrow.limits.max_spawn_depth).toBeLessThanOrEqual(wide.limits.max_spawn_depth);
}

describe("childOverrides (examples)", () => {
  it("gives an orchestrator's researcher child its web and file tools", () => {
    const [orchestrator, researcher] = [builtin("orchestrator"), builtin("researcher")];
    const overrides = childOverrides(agent(orchestrator, {}));
    expect(overrides).toEqual({
      limits: { max_spawn_depth: 1 },
      isolation: { network: false },
    });
    expect(offeredNames(effectiveCapabilities(researcher, overrides, catalogue))).toEqual(
      offeredNames(effectiveCapabilities(researcher, {}, catalogue)),
    );
  });

  it("holds a developer child of a verifier to read-only, strict, and no further spawning", () => {
    const [verifier, developer] = [builtin("verifier"), builtin("developer")];
    const caps = effectiveCapabilities(developer, childOverrides(agent(verifier, {})), catalogue);
    expect(caps.isolation.read_only).toBe(true);
    expect(caps.offered.every((tool) => tool.risk === "read")).toBe(true);
    expect(caps.policy_profile).toBe("strict");
    expect(caps.limits.max_spawn_depth).toBe(0);
    expect(offeredNames(caps)).not.toContain("shell");
  });
});
