import { describe, expect, it } from "vitest";
import { builtinConfig } from "../config/config-file.js";
import type { AgentType } from "./agent-type.js";
import { effectiveCapabilities } from "./capabilities.js";
import { checkOverrides } from "./override-check.js";

const { registry, catalogue } = builtinConfig();
const react = registry.get("react_agent") as AgentType;
const online: AgentType = { ...react, isolation: { ...react.isolation, network: true } };

describe("isolation.network in overrides", () => {
  it("is off unless the type turns it on", () => {
    expect(react.isolation.network).toBe(false);
    expect(effectiveCapabilities(react, {}, catalogue).isolation.network).toBe(false);
    expect(effectiveCapabilities(online, {}, catalogue).isolation.network).toBe(true);
  });

  it("refuses an agent that turns network on past its type", () => {
    expect(checkOverrides(react, { isolation: { network: true } }, catalogue)).toEqual([
      {
        path: "isolation.network",
        message: "the type has no network: agent type 'react_agent' does not allow it",
      },
    ]);
    // Clamped anyway, should a stored override carry it.
    const caps = effectiveCapabilities(react, { isolation: { network: true } }, catalogue);
    expect(caps.isolation.network).toBe(false);
  });

  it("lets an agent turn network off on a type that has it", () => {
    const overrides = { isolation: { network: false } };
    expect(checkOverrides(online, overrides, catalogue)).toEqual([]);
    expect(effectiveCapabilities(online, overrides, catalogue).isolation.network).toBe(false);
  });
});
