import { z } from "zod";
import { isHttpUrl } from "../llm/provider-settings.js";
import { type ToolCatalogue, withUnavailable } from "../tools/catalogue.js";
import { parseCidr } from "../tools/web/address-guard.js";
import {
  DEFAULT_WEB_SETTINGS,
  type SearchProviderName,
  type WebSettings,
} from "../tools/web/web-settings.js";
import type { HoldfastConfig } from "./config-file.js";

const Url = z.string().refine(isHttpUrl, "must be an http(s) URL");
const MaxResults = z.int().min(1).max(20).default(5);
const ApiKey = z.string().min(1);

/**
 * `tools.web.search`: the service `web_search` asks. SearXNG needs its URL; Brave and Tavily
 * need a key (here or in `BRAVE_API_KEY` / `TAVILY_API_KEY`) and take a URL only to point at a
 * stand-in of their API.
 */
const SearchSection = z.discriminatedUnion("provider", [
  z.strictObject({ provider: z.literal("searxng"), url: Url, max_results: MaxResults }),
  z.strictObject({
    provider: z.literal("brave"),
    api_key: ApiKey.optional(),
    url: Url.optional(),
    max_results: MaxResults,
  }),
  z.strictObject({
    provider: z.literal("tavily"),
    api_key: ApiKey.optional(),
    url: Url.optional(),
    max_results: MaxResults,
  }),
]);

const Network = z.string().refine((cidr) => parseCidr(cidr) !== null, {
  message: "must be an IP address or network, e.g. 10.1.2.0/24 or fd00::/8",
});

/** `tools.web`: what the web tools may reach and how much they may take. */
export const WebSection = z.strictObject({
  search: SearchSection.optional(),
  allow_private_addresses: z.boolean().default(DEFAULT_WEB_SETTINGS.allowPrivateAddresses),
  allowed_networks: z.array(Network).default([]),
  max_bytes: z
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(DEFAULT_WEB_SETTINGS.maxBytes),
  timeout_ms: z.int().min(100).max(300_000).default(DEFAULT_WEB_SETTINGS.timeoutMs),
  max_redirects: z.int().min(0).max(20).default(DEFAULT_WEB_SETTINGS.maxRedirects),
});
export type WebSection = z.infer<typeof WebSection>;

/**
 * `tools.mcp.api_stdio`: whether stdio MCP servers may be added through the API. Such a server
 * runs a command as the server's OS user, outside the shell's sandbox; unset, it is allowed only
 * on a server without bearer tokens (one user, on loopback).
 */
export const McpApiSection = z.strictObject({ api_stdio: z.enum(["allow", "deny"]).optional() });

/** The `tools:` section: settings of built-in tools, by group. */
export const ToolsSection = z.strictObject({
  web: WebSection.prefault({}),
  mcp: McpApiSection.prefault({}),
});
export type ToolsSection = z.infer<typeof ToolsSection>;

export const DEFAULT_TOOLS_SECTION: ToolsSection = ToolsSection.parse({});

export const NO_SEARCH_PROVIDER =
  "no search provider configured (set tools.web.search in holdfast.yaml: searxng, brave or tavily)";

const KEY_ENV: Record<SearchProviderName, string | null> = {
  searxng: null,
  brave: "BRAVE_API_KEY",
  tavily: "TAVILY_API_KEY",
};
const DEFAULT_URL: Record<SearchProviderName, string> = {
  searxng: "",
  brave: "https://api.search.brave.com",
  tavily: "https://api.tavily.com",
};

/** `web_search` marked unavailable when the file names no provider: a fact of the file alone. */
export function withWebSection(catalogue: ToolCatalogue, web: WebSection): ToolCatalogue {
  return web.search ? catalogue : withUnavailable(catalogue, "web_search", NO_SEARCH_PROVIDER);
}

/**
 * The web tools' settings, with the search key taken from the file or else the env. A provider
 * that needs a key and has none is not used: `web_search` is withheld with the reason.
 */
export function resolveWebSettings(
  web: WebSection,
  env: NodeJS.ProcessEnv,
): { settings: WebSettings; searchUnavailable?: string } {
  const base: WebSettings = {
    search: null,
    allowPrivateAddresses: web.allow_private_addresses,
    allowedNetworks: web.allowed_networks,
    maxBytes: web.max_bytes,
    timeoutMs: web.timeout_ms,
    maxRedirects: web.max_redirects,
  };
  const search = web.search;
  if (!search) return { settings: base };
  const keyEnv = KEY_ENV[search.provider];
  const fromEnv = keyEnv ? env[keyEnv]?.trim() || undefined : undefined;
  const apiKey = search.provider === "searxng" ? undefined : (search.api_key ?? fromEnv);
  if (keyEnv && !apiKey)
    return {
      settings: base,
      searchUnavailable: `search provider '${search.provider}' has no API key (set ${keyEnv} or tools.web.search.api_key)`,
    };
  const url = search.url ?? DEFAULT_URL[search.provider];
  const settings = { provider: search.provider, url, apiKey, maxResults: search.max_results };
  return { settings: { ...base, search: settings } };
}

/**
 * Resolves the web tools for this server's env and applies what it found to the config: what
 * the server does at start-up, and what `holdfast types` shows, so both tell the same story.
 */
export function prepareWebTools(
  config: HoldfastConfig,
  env: NodeJS.ProcessEnv,
): { config: HoldfastConfig; web: WebSettings } {
  const { settings, searchUnavailable } = resolveWebSettings(config.tools.web, env);
  if (!searchUnavailable) return { config, web: settings };
  const catalogue = withUnavailable(config.catalogue, "web_search", searchUnavailable);
  return { config: { ...config, catalogue }, web: settings };
}
