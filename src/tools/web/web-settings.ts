/** The search services `web_search` can use, each by its own wire format. */
export const SEARCH_PROVIDERS = ["searxng", "brave", "tavily"] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** A configured search service, with its key resolved (from the config file or the env). */
export interface SearchSettings {
  readonly provider: SearchProviderName;
  /** The service's base URL: a SearXNG instance, or a stand-in for Brave's or Tavily's API. */
  readonly url: string;
  /** Never shown in responses or logs. Brave and Tavily need one; SearXNG none. */
  readonly apiKey?: string | undefined;
  readonly maxResults: number;
}

/** How the web tools reach the network: what they may reach and how much they may take. */
export interface WebSettings {
  /** `null`: no search provider, so `web_search` is not offered. */
  readonly search: SearchSettings | null;
  /** Reach loopback, private, link-local and metadata addresses too (off by default). */
  readonly allowPrivateAddresses: boolean;
  /** Networks exempt from the address guard, e.g. an intranet wiki at `10.1.2.0/24`. */
  readonly allowedNetworks: readonly string[];
  /** The most bytes of a response body read (after decompression); the rest is cut off. */
  readonly maxBytes: number;
  /** How long one call may take, redirects and reading the body included. */
  readonly timeoutMs: number;
  readonly maxRedirects: number;
}

export const DEFAULT_WEB_SETTINGS: WebSettings = {
  search: null,
  allowPrivateAddresses: false,
  allowedNetworks: [],
  maxBytes: 2 * 1024 * 1024,
  timeoutMs: 20_000,
  maxRedirects: 5,
};

/** How many characters of text a web tool returns to the model at most (like the shell's cap). */
export const MAX_OUTPUT_CHARS = 32 * 1024;

/** Cuts `text` to the output cap, saying so. */
export function capOutput(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_OUTPUT_CHARS)}\n\n[cut: ${text.length} characters, the first ${MAX_OUTPUT_CHARS} shown]`;
}

/** One line for the start-up banner; never the search key, nor the URL's path or user. */
export function describeWeb(settings: WebSettings): string {
  const search = settings.search
    ? `search via ${settings.search.provider} at ${new URL(settings.search.url).host}`
    : "no search provider (web_search not offered)";
  const guard = settings.allowPrivateAddresses
    ? "private addresses allowed"
    : settings.allowedNetworks.length > 0
      ? `private addresses refused but ${settings.allowedNetworks.join(", ")}`
      : "private addresses refused";
  return `${search}; ${guard}`;
}
