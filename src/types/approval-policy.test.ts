import { describe, expect, it } from "vitest";
import { builtinConfig, checkConfig } from "../config/config-file.js";
import { approvalRequiredBy } from "./approval-policy.js";
import type { AgentOverrides } from "./overrides.js";

const checked = checkConfig({
  types: { careful: { extends: "letta_v1_agent", policy_profile: "strict" } },
});
if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
const { registry, catalogue } = checked.config;

function why(typeName: string, toolName: string, overrides: AgentOverrides = {}) {
  const type = registry.get(typeName);
  const tool = catalogue.tools.get(toolName);
  if (!type || !tool) throw new Error(`missing ${typeName} or ${toolName}`);
  return approvalRequiredBy(type, overrides, tool);
}

describe("approvalRequiredBy", () => {
  it("names the type's approval setting", () => {
    expect(why("developer", "shell")).toBe(
      "agent type 'developer' requires approval for 'shell' (tools.approval: per_action)",
    );
  });

  it("names the type's policy profile", () => {
    expect(why("careful", "memory_insert")).toBe(
      "agent type 'careful' requires approval for 'memory_insert' (policy_profile: strict)",
    );
  });

  it("names the agent's own overrides", () => {
    expect(why("letta_v1_agent", "memory_insert", { tools: { approval: "per_session" } })).toBe(
      "this agent's overrides require approval for 'memory_insert' (tools.approval: per_session)",
    );
    expect(why("letta_v1_agent", "memory_insert", { policy_profile: "strict" })).toBe(
      "this agent's overrides require approval for 'memory_insert' (policy_profile: strict)",
    );
  });

  it("is undefined for read tools and where no policy asks", () => {
    expect(why("developer", "read_file")).toBeUndefined();
    expect(why("letta_v1_agent", "memory_insert")).toBeUndefined();
    expect(builtinConfig().registry.get("developer")?.tools.approval).toBe("per_action");
  });
});
