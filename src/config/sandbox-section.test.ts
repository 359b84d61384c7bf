import { describe, expect, it } from "vitest";
import { effectiveCapabilities } from "../types/capabilities.js";
import { checkConfig } from "./config-file.js";
import { withSandbox } from "./sandbox-section.js";

const NO_SANDBOX = "no sandbox on this server: bwrap is not on PATH (install bubblewrap, …)";

function configOf(document: unknown) {
  const result = checkConfig(document);
  if (!result.ok) throw new Error(`expected a valid config: ${JSON.stringify(result.errors)}`);
  return result.config;
}

describe("the sandbox section", () => {
  it("asks for bubblewrap unless the file says otherwise", () => {
    expect(configOf({}).sandbox).toEqual({ mode: "bwrap" });
    expect(configOf({ sandbox: {} }).sandbox).toEqual({ mode: "bwrap" });
    expect(configOf({ sandbox: { mode: "none" } }).sandbox).toEqual({ mode: "none" });
  });

  it("rejects an unknown mode or field with its full path", () => {
    const result = checkConfig({ sandbox: { mode: "firejail", network: true } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.errors.map((error) => error.path);
    expect(paths).toContain("sandbox.mode");
    expect(result.errors.find((e) => e.path === "sandbox.mode")?.message).toMatch(/bwrap.*none/);
    expect(result.errors.some((e) => /network/.test(`${e.path} ${e.message}`))).toBe(true);
    expect(checkConfig({ sandbox: "none" }).ok).toBe(false);
  });
});

describe("withSandbox", () => {
  it("withholds the shell with the reason when start-up found no sandbox", () => {
    const config = withSandbox(configOf({}), { ok: false, reason: NO_SANDBOX });
    const type = config.registry.get("react_agent");
    if (!type) throw new Error("react_agent is built in");
    const caps = effectiveCapabilities(type, {}, config.catalogue);
    expect(caps.offered.map((tool) => tool.name)).not.toContain("shell");
    expect(caps.withheld).toContainEqual({ name: "shell", reason: NO_SANDBOX });
  });

  it("leaves the shell offered with a sandbox, or with mode none chosen", () => {
    for (const sandbox of [
      { mode: "bwrap" as const, bwrapPath: "/usr/bin/bwrap", hiddenPaths: [] },
      { mode: "none" as const },
    ]) {
      const config = withSandbox(configOf({}), { ok: true, sandbox });
      const type = config.registry.get("react_agent");
      if (!type) throw new Error("react_agent is built in");
      const caps = effectiveCapabilities(type, {}, config.catalogue);
      expect(caps.offered.map((tool) => tool.name)).toContain("shell");
    }
  });

  it("keeps a type's own reason for withholding the shell before the server's", () => {
    const config = withSandbox(configOf({}), { ok: false, reason: NO_SANDBOX });
    const verifier = config.registry.get("verifier");
    if (!verifier) throw new Error("verifier is built in");
    const caps = effectiveCapabilities(
      verifier,
      { tools: { include: ["shell"] } },
      config.catalogue,
    );
    expect(caps.withheld.find((tool) => tool.name === "shell")?.reason).not.toBe(NO_SANDBOX);
  });
});
