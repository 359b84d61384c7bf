import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, startServer, stopServer } from "./cli.js";
import { tempDir } from "./support/temp-dirs.js";

describe("holdfast serve", () => {
  const cwd = tempDir("holdfast-serve-");
  writeFileSync(
    join(cwd, "holdfast.yaml"),
    "server:\n  port: 0\ntypes:\n  quick:\n    extends: qa_assistant\n",
  );
  const server = startServer([], { cwd });
  afterAll(async () => stopServer((await server).process));

  it("serves health and agent types from the config file found in its directory", async () => {
    const { url } = await server;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${url}/v1/health/`);
    expect(await health.json()).toMatchObject({ status: "ok" });
    const types = (await (await fetch(`${url}/v1/agent-types`)).json()) as { name: string }[];
    expect(types.map((type) => type.name)).toContain("quick");
  });

  it("refuses to start on a bad config, printing the errors", () => {
    const bad = tempDir("holdfast-bad-");
    writeFileSync(join(bad, "holdfast.json"), JSON.stringify({ types: { x: { extends: "y" } } }));
    const result = runCli(["serve", "--port", "0"], { cwd: bad });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("types.x.extends");
  });

  it("exits with a clear message when the port is taken", async () => {
    const { url } = await server;
    const port = new URL(url).port;
    const result = runCli(["serve", "--port", port], { cwd: tempDir("hf-") });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`port ${port} is in use`);
  });
});
