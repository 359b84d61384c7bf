import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { noSandboxReason } from "../src/tools/sandbox/detect-sandbox.js";
import { runCli, startServer, stopServer } from "./cli.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #16, point 5: where there is no sandbox, the shell is not offered unless the operator
// chose `sandbox.mode: none`, and every view of a type says why. These tests need no bubblewrap.

const REASON = noSandboxReason("bwrap is not on PATH");
/** A PATH with no bwrap on it, whatever this machine has installed. */
const emptyBin = mkdtempSync(join(tmpdir(), "holdfast-no-bwrap-"));
const NO_BWRAP = { PATH: emptyBin, HOLDFAST_TOKENS: "", HOLDFAST_CONFIG: "", OPENAI_API_KEY: "" };
afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));

interface TypeBody {
  capabilities: { offered: { name: string }[]; withheld: { name: string; reason: string }[] };
}

describe("the shell without a sandbox", () => {
  it("is withheld with the reason by GET /v1/agent-types/{name}, and cannot run", async () => {
    const server = await startTestServer({ sandbox: { ok: false, reason: REASON } });
    try {
      const response = await fetch(`${server.url}/v1/agent-types/react_agent`);
      const body = (await response.json()) as TypeBody;
      expect(body.capabilities.offered.map((tool) => tool.name)).not.toContain("shell");
      expect(body.capabilities.withheld).toContainEqual({ name: "shell", reason: REASON });
      expect(REASON).toBe(
        "no sandbox on this server: bwrap is not on PATH (install bubblewrap, or set " +
          "sandbox.mode: none in holdfast.yaml to run commands unconfined)",
      );
      expect(server.engine.sandbox).toEqual({ ok: false, reason: REASON });
    } finally {
      await server.close();
    }
  });

  it("is withheld by `holdfast types show` on a machine without bwrap", () => {
    const shown = runCli(["types", "show", "react_agent"], { env: NO_BWRAP });
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(/withheld tools\n\s+shell\s+no sandbox on this server: bwrap/);
    const json = runCli(["types", "show", "react_agent", "--json"], { env: NO_BWRAP });
    const body = JSON.parse(json.stdout) as TypeBody;
    expect(body.capabilities.withheld).toContainEqual({ name: "shell", reason: REASON });
  });

  it("is offered, unconfined, when the config says sandbox.mode: none", () => {
    const dir = mkdtempSync(join(tmpdir(), "holdfast-sandbox-none-"));
    try {
      writeFileSync(join(dir, "holdfast.yaml"), "sandbox:\n  mode: none\n");
      const shown = runCli(["types", "show", "react_agent", "--json"], { cwd: dir, env: NO_BWRAP });
      const body = JSON.parse(shown.stdout) as TypeBody;
      expect(body.capabilities.offered.map((tool) => tool.name)).toContain("shell");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is named in the start-up banner, which says which sandbox is in use", async () => {
    const dir = mkdtempSync(join(tmpdir(), "holdfast-sandbox-banner-"));
    try {
      const bare = await startServer(["--port", "0"], { cwd: dir, env: NO_BWRAP });
      await stopServer(bare.process);
      expect(bare.output()).toContain(
        "sandbox: none: shell not offered (no sandbox on this server",
      );

      writeFileSync(join(dir, "holdfast.yaml"), "sandbox:\n  mode: none\n");
      const chosen = await startServer(["--port", "0"], { cwd: dir, env: NO_BWRAP });
      await stopServer(chosen.process);
      expect(chosen.output()).toContain("sandbox: none (sandbox.mode: none)");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rejects a bad sandbox mode at config check with its full path", () => {
    const dir = mkdtempSync(join(tmpdir(), "holdfast-sandbox-bad-"));
    try {
      writeFileSync(join(dir, "holdfast.yaml"), "sandbox:\n  mode: docker\n");
      const checked = runCli(["config", "check"], { cwd: dir, env: NO_BWRAP });
      expect(checked.status).toBe(1);
      expect(checked.stdout + checked.stderr).toMatch(
        /holdfast\.yaml: sandbox\.mode: .*"bwrap".*"none"/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
