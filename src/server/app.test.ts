import { describe, expect, it } from "vitest";
import { builtinConfig, checkConfig } from "../config/config-file.js";
import { createApp } from "./app.js";

const app = createApp({ config: builtinConfig(), version: "9.9.9" });

describe("HTTP app", () => {
  it("answers health with and without the trailing slash Letta's client uses", async () => {
    for (const path of ["/v1/health/", "/v1/health"]) {
      const response = await app.request(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "ok", version: "9.9.9" });
    }
  });

  it("lists agent types as a bare array with their capabilities", async () => {
    const response = await app.request("/v1/agent-types");
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    const types = (await response.json()) as {
      name: string;
      capabilities: { offered: unknown[] };
    }[];
    expect(types.map((type) => type.name)).toContain("memgpt_agent");
    expect(types.find((type) => type.name === "synthesis")?.capabilities.offered).toEqual([]);
  });

  it("shows one type, and a 404 naming the known types for an unknown one", async () => {
    const found = await app.request("/v1/agent-types/verifier");
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({ name: "verifier", isolation: { read_only: true } });

    const missing = await app.request("/v1/agent-types/ghost");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      code: "NOT_FOUND",
      detail: "agent type 'ghost' not found",
      known: expect.arrayContaining(["verifier"]),
    });
  });

  it("serves types from the config file beside the built-ins", async () => {
    const result = checkConfig({
      types: { my_type: { extends: "verifier", limits: { max_iterations: 2 } } },
    });
    if (!result.ok) throw new Error("bad config");
    const custom = createApp({ config: result.config, version: "1" });
    const response = await custom.request("/v1/agent-types/my_type");
    expect(await response.json()).toMatchObject({ name: "my_type", limits: { max_iterations: 2 } });
  });

  it("answers an unknown route with a JSON 404", async () => {
    const response = await app.request("/v1/nowhere");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("documents every route in /openapi.json from the zod schemas", async () => {
    const doc = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/v1/agent-types",
      "/v1/agent-types/{name}",
      "/v1/health",
      "/v1/models/embedding",
    ]);
    expect(JSON.stringify(doc.paths["/v1/agent-types/{name}"])).toContain("single_shot");
  });
});

describe("paths", () => {
  it("refuses '.' and '..' segments, escaped or not, instead of resolving them to a parent", async () => {
    const raw = (url: string) =>
      app.fetch(new Request(`http://localhost${url}`), { incoming: { url } } as never);
    for (const url of [
      "/v1/agent-types/%2E%2E",
      "/v1/agent-types/%2e%2e/x",
      "/v1/agent-types/./verifier",
    ]) {
      const response = await raw(url);
      expect(response.status, url).toBe(400);
      expect(await response.json()).toMatchObject({ code: "BAD_REQUEST" });
    }
    expect((await raw("/v1/agent-types/verifier")).status).toBe(200);
  });
});
