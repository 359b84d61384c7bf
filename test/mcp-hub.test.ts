import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../src/core/clock.js";
import type { AgentMemory } from "../src/memory/agent-memory.js";
import { builtinToolCatalogue } from "../src/tools/catalogue.js";
import { LiveToolCatalogue } from "../src/tools/live-catalogue.js";
import { McpHub } from "../src/tools/mcp/mcp-hub.js";
import { McpServerConfig } from "../src/tools/mcp/mcp-server-config.js";
import type { ToolContext } from "../src/tools/tool.js";
import {
  everythingOverStdio,
  FILESYSTEM_SERVER,
  type HttpMcpServer,
  startEverythingOverHttp,
  waitFor,
} from "./support/mcp-servers.js";

const hubs: McpHub[] = [];
const httpServers: HttpMcpServer[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.closeAll()));
  await Promise.all(httpServers.splice(0).map((server) => server.stop()));
});

function newHub() {
  const catalogue = new LiveToolCatalogue(builtinToolCatalogue(), []);
  const logged: string[] = [];
  const hub = new McpHub({ catalogue, clock: systemClock, log: (line) => logged.push(line) });
  hubs.push(hub);
  return { catalogue, hub, logged };
}

const context = (signal = new AbortSignal()): ToolContext => ({
  agentId: "agent-1",
  workspace: { root: null, readOnly: false, network: false },
  memory: {} as AgentMemory,
  clock: systemClock,
  signal: AbortSignal.any([signal]),
  idempotencyKey: "key",
});

const run = (
  catalogue: LiveToolCatalogue,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
) => {
  const tool = catalogue.runnable.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.run(args, context(signal ?? new AbortController().signal));
};

describe("MCP servers as tool sources", () => {
  it("offers the everything server's tools over stdio as the pack mcp:everything, and runs them", async () => {
    const { catalogue, hub } = newHub();
    hub.add("everything", McpServerConfig.parse(everythingOverStdio()), "config");
    expect(catalogue.packs.get("mcp:everything")).toEqual([]);
    await hub.startAll();
    expect(hub.status("everything")?.state).toEqual({ state: "connected" });
    expect(catalogue.packs.get("mcp:everything")).toEqual(
      expect.arrayContaining(["echo", "get-sum"]),
    );
    const echo = catalogue.tools.get("echo");
    expect(echo?.risk).toBe("read");
    expect(echo?.jsonSchema).toMatchObject({ type: "object", properties: { message: {} } });
    expect(catalogue.runnable.get("echo")?.idempotent).toBe(true);
    expect(await run(catalogue, "echo", { message: "hi" })).toEqual({
      status: "success",
      output: "Echo: hi",
    });
    expect(await run(catalogue, "get-sum", { a: 2, b: 3 })).toMatchObject({
      output: expect.stringContaining("5"),
    });
  });

  it("gives a stdio server its env and a minimal environment, never Holdfast's own", async () => {
    process.env.HOLDFAST_TEST_PROVIDER_KEY = "provider-key-must-not-leak";
    try {
      const { catalogue, hub } = newHub();
      const config = everythingOverStdio({ env: { EVERYTHING_TOKEN: "given-to-the-server" } });
      hub.add("everything", McpServerConfig.parse(config), "config");
      await hub.startAll();
      const env = await run(catalogue, "get-env", {});
      expect(env.output).toContain("given-to-the-server");
      expect(env.output).toContain("PATH");
      expect(env.output).not.toContain("provider-key-must-not-leak");
    } finally {
      delete process.env.HOLDFAST_TEST_PROVIDER_KEY;
    }
  });

  it("checks arguments against the server's JSON Schema before calling, naming the field", () => {
    const { catalogue, hub } = newHub();
    hub.add("everything", McpServerConfig.parse(everythingOverStdio()), "config");
    return hub.startAll().then(() => {
      const parsed = catalogue.tools.get("get-sum")?.parameters.safeParse({ a: "two" });
      expect(parsed?.success).toBe(false);
      expect(parsed?.error?.issues.map((issue) => issue.path.join("."))).toEqual(["a", "b"]);
    });
  });

  it("reconnects a stdio server that was killed, with a readable error meanwhile", async () => {
    const { catalogue, hub } = newHub();
    const entry = hub.add("everything", McpServerConfig.parse(everythingOverStdio()), "config");
    await hub.startAll();
    const firstPid = entry.connection.pid;
    expect(firstPid).toBeGreaterThan(0);
    process.kill(firstPid ?? 0, "SIGKILL");
    await waitFor(() => entry.connection.state.state !== "connected");
    const during = await run(catalogue, "echo", { message: "x" }).catch(
      (error: Error) => error.message,
    );
    expect(String(during)).toMatch(/everything/);
    await waitFor(() => entry.connection.state.state === "connected");
    expect(entry.connection.pid).not.toBe(firstPid);
    expect(await run(catalogue, "echo", { message: "back" })).toMatchObject({
      output: "Echo: back",
    });
  });

  it("ends a hanging call when its signal aborts, and the server goes on answering", async () => {
    const { catalogue, hub } = newHub();
    hub.add(
      "everything",
      McpServerConfig.parse(everythingOverStdio({ timeout_ms: 5_000 })),
      "config",
    );
    await hub.startAll();
    const slow = run(
      catalogue,
      "trigger-long-running-operation",
      { duration: 30, steps: 3 },
      AbortSignal.timeout(500),
    );
    await expect(slow).rejects.toThrow(/everything|abort/i);
    expect(await run(catalogue, "echo", { message: "still here" })).toMatchObject({
      output: "Echo: still here",
    });
  });

  it("replaces a hung stdio server: a call times out, the server misses a ping, a new one starts", async () => {
    const { catalogue, hub } = newHub();
    const entry = hub.add("everything", McpServerConfig.parse(everythingOverStdio()), "config");
    await hub.startAll();
    const hungPid = entry.connection.pid ?? 0;
    process.kill(hungPid, "SIGSTOP");
    try {
      const call = run(catalogue, "echo", { message: "x" }, AbortSignal.timeout(300));
      await expect(call).rejects.toThrow();
      await waitFor(() => entry.connection.state.state !== "connected");
      expect(entry.connection.state).toMatchObject({ state: "failed" });
      await waitFor(() => entry.connection.state.state === "connected", 30_000);
      expect(entry.connection.pid).not.toBe(hungPid);
      expect(await run(catalogue, "echo", { message: "fresh" })).toMatchObject({
        output: "Echo: fresh",
      });
    } finally {
      try {
        process.kill(hungPid, "SIGKILL");
      } catch {
        // Already gone: closing the transport ended it.
      }
    }
  }, 60_000);

  it("speaks Streamable HTTP, and reconnects after the server restarts, its secret in no message", async () => {
    const server = await startEverythingOverHttp();
    httpServers.push(server);
    const { catalogue, hub, logged } = newHub();
    const entry = hub.add(
      "remote",
      McpServerConfig.parse({
        url: server.url,
        headers: { authorization: "Bearer s3cret-token-value" },
      }),
      "api",
    );
    await hub.startAll();
    expect(await run(catalogue, "echo", { message: "over http" })).toMatchObject({
      output: "Echo: over http",
    });
    await server.stop();
    const failed = await run(catalogue, "echo", { message: "x" }).catch(
      (error: Error) => error.message,
    );
    expect(String(failed)).not.toContain("s3cret");
    await waitFor(() => entry.connection.state.state === "failed");
    httpServers.push(await startEverythingOverHttp(server.port));
    await waitFor(() => entry.connection.state.state === "connected", 30_000);
    expect(await run(catalogue, "echo", { message: "again" })).toMatchObject({
      output: "Echo: again",
    });
    expect(logged.some((line) => line.includes("failed"))).toBe(true);
    expect(logged.join("\n")).not.toContain("s3cret");
  });

  it("leaves out filesystem tools whose names built-in tools have, unless the server has a prefix", async () => {
    const root = mkdtempSync(join(tmpdir(), "holdfast-mcp-fs-"));
    writeFileSync(join(root, "note.txt"), "hello from disk");
    const { catalogue, hub } = newHub();
    const fs = { command: process.execPath, args: [FILESYSTEM_SERVER, root] };
    hub.add("fs", McpServerConfig.parse(fs), "config");
    hub.add("files", McpServerConfig.parse({ ...fs, tool_prefix: "fs_" }), "config");
    await hub.startAll();
    const skipped = hub.status("fs")?.skipped.map((tool) => tool.name);
    expect(skipped).toEqual(expect.arrayContaining(["read_file", "write_file", "list_directory"]));
    expect(catalogue.packs.get("mcp:fs")).toContain("read_text_file");
    expect(catalogue.packs.get("mcp:files")).toContain("fs_read_file");
    expect(catalogue.tools.get("fs_write_file")?.risk).toBe("exec");
    expect(catalogue.tools.get("fs_create_directory")?.risk).toBe("write");
    const read = await run(catalogue, "read_text_file", { path: join(root, "note.txt") });
    expect(read).toEqual({ status: "success", output: "hello from disk" });
  });

  it("takes a removed server's tools out of the catalogue", async () => {
    const { catalogue, hub } = newHub();
    hub.add("everything", McpServerConfig.parse(everythingOverStdio()), "api");
    await hub.startAll();
    const before = catalogue.version;
    await hub.remove("everything");
    expect(catalogue.version).toBeGreaterThan(before ?? 0);
    expect(catalogue.tools.has("echo")).toBe(false);
    expect(catalogue.packs.has("mcp:everything")).toBe(false);
  });
});
