import { describe, expect, it } from "vitest";
import { effectiveCapabilities } from "../types/capabilities.js";
import { checkConfig, type HoldfastConfig } from "./config-file.js";
import { NO_SEARCH_PROVIDER, prepareWebTools, resolveWebSettings } from "./web-section.js";

function configOf(document: unknown): HoldfastConfig {
  const result = checkConfig(document);
  if (!result.ok) throw new Error(`expected a valid config: ${JSON.stringify(result.errors)}`);
  return result.config;
}

function researcherTools(config: HoldfastConfig) {
  const type = config.registry.get("researcher");
  if (!type) throw new Error("researcher is built in");
  return effectiveCapabilities(type, {}, config.catalogue);
}

describe("the tools.web section", () => {
  it("has safe defaults: no search, private addresses refused, bounded size, time and redirects", () => {
    expect(configOf({}).tools.web).toEqual({
      allow_private_addresses: false,
      allowed_networks: [],
      max_bytes: 2 * 1024 * 1024,
      timeout_ms: 20_000,
      max_redirects: 5,
    });
  });

  it("rejects unknown fields, bad values and a provider without what it needs, with full paths", () => {
    const result = checkConfig({
      tools: {
        web: {
          search: { provider: "searxng" },
          max_bytes: 10,
          allowed_networks: ["10.0.0.0/8", "intranet"],
          follow: true,
        },
      },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "tools.web.search.url",
        "tools.web.max_bytes",
        "tools.web.allowed_networks.1",
      ]),
    );
    expect(result.errors.some((e) => /follow/.test(`${e.path} ${e.message}`))).toBe(true);
    const provider = checkConfig({ tools: { web: { search: { provider: "google" } } } });
    expect(provider.ok ? [] : provider.errors.map((e) => e.path)).toContain(
      "tools.web.search.provider",
    );
    expect(checkConfig({ tools: { shell: {} } }).ok).toBe(false);
  });

  it("withholds web_search with the reason when no provider is configured", () => {
    const caps = researcherTools(configOf({}));
    expect(caps.offered.map((t) => t.name)).toEqual(["web_fetch", "read_file"]);
    expect(caps.withheld).toContainEqual({ name: "web_search", reason: NO_SEARCH_PROVIDER });
  });

  it("offers web_search with a provider", () => {
    const config = configOf({
      tools: { web: { search: { provider: "searxng", url: "http://127.0.0.1:8888" } } },
    });
    expect(researcherTools(config).offered.map((t) => t.name)).toContain("web_search");
  });
});

describe("resolveWebSettings", () => {
  it("takes the key from the file first, then the env, and the provider's own URL by default", () => {
    const brave = configOf({
      tools: { web: { search: { provider: "brave", api_key: "file-key" } } },
    });
    const fromFile = resolveWebSettings(brave.tools.web, { BRAVE_API_KEY: "env-key" });
    expect(fromFile.settings.search).toEqual({
      provider: "brave",
      url: "https://api.search.brave.com",
      apiKey: "file-key",
      maxResults: 5,
    });
    const tavily = configOf({ tools: { web: { search: { provider: "tavily", max_results: 3 } } } });
    expect(
      resolveWebSettings(tavily.tools.web, { TAVILY_API_KEY: "env-key" }).settings.search,
    ).toMatchObject({ provider: "tavily", apiKey: "env-key", maxResults: 3 });
  });

  it("withholds web_search, naming the variable, when a provider's key is missing", () => {
    const config = configOf({ tools: { web: { search: { provider: "tavily" } } } });
    const prepared = prepareWebTools(config, { TAVILY_API_KEY: " " });
    expect(prepared.web.search).toBeNull();
    expect(researcherTools(prepared.config).withheld).toContainEqual({
      name: "web_search",
      reason:
        "search provider 'tavily' has no API key (set TAVILY_API_KEY or tools.web.search.api_key)",
    });
  });

  it("carries the guard and limits over", () => {
    const config = configOf({
      tools: {
        web: {
          allow_private_addresses: true,
          allowed_networks: ["10.1.2.0/24"],
          max_bytes: 4096,
          timeout_ms: 1000,
          max_redirects: 0,
        },
      },
    });
    expect(prepareWebTools(config, {}).web).toEqual({
      search: null,
      allowPrivateAddresses: true,
      allowedNetworks: ["10.1.2.0/24"],
      maxBytes: 4096,
      timeoutMs: 1000,
      maxRedirects: 0,
    });
  });
});
