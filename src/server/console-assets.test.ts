import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinConfig } from "../config/config-file.js";
import { createApp } from "./app.js";

const built = mkdtempSync(join(tmpdir(), "holdfast-console-files-"));
mkdirSync(join(built, "assets"));
writeFileSync(join(built, "index.html"), "<!doctype html><title>console</title>");
writeFileSync(
  join(built, "assets", "index-abc.js"),
  `console.log(${JSON.stringify("x".repeat(4000))})`,
);
writeFileSync(join(tmpdir(), "holdfast-console-secret.txt"), "secret");

const tokens = new Map([["t0ken", "default"]]);
const app = (consoleDir: string) =>
  createApp({ config: builtinConfig(), version: "test", tokens, consoleDir });

afterAll(() => rmSync(built, { recursive: true, force: true }));

describe("the console's files", () => {
  it("redirects / to /console/", async () => {
    const response = await app(built).request("/");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/console/");
  });

  it("serves the page without a token, while the API still asks for one", async () => {
    const page = await app(built).request("/console/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("<title>console</title>");
    expect((await app(built).request("/v1/agents/")).status).toBe(401);
  });

  it("serves hashed assets compressed and cacheable for good", async () => {
    const response = await app(built).request("/console/assets/index-abc.js", {
      headers: { "accept-encoding": "gzip" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/javascript");
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("cache-control")).toContain("immutable");
  });

  it("answers a deep link with the app, and never a file outside its folder", async () => {
    const deep = await app(built).request("/console/agents/x");
    expect(await deep.text()).toContain("<title>console</title>");
    for (const path of [
      "/console/%2e%2e/holdfast-console-secret.txt",
      "/console/..%2fholdfast-console-secret.txt",
      "/console/%zz",
    ]) {
      const response = await app(built).request(path);
      expect(await response.text()).not.toContain("secret");
    }
  });

  it("says how to build it when it is not built", async () => {
    const response = await app(join(built, "missing")).request("/console/");
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("npm run build");
  });
});
