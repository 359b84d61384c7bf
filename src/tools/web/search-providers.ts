import { z } from "zod";
import type { SearchProviderName, SearchSettings } from "./web-settings.js";

/** One search hit as `web_search` shows it. */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/** The HTTP request that asks a provider for `query`. */
export interface SearchCall {
  readonly url: string;
  readonly init: { method: string; headers: Record<string, string>; body?: string };
}

/** How to speak to one search service: the request, and how to read its answer. */
interface SearchWire {
  readonly defaultUrl: string | null;
  call(settings: SearchSettings, query: string): SearchCall;
  /** The hits in the answer; an extra line (an instant answer) first if the service gives one. */
  parse(json: unknown): { hits: SearchHit[]; answer?: string };
  /** A hint for a failed status, where the cause is usually known. */
  hint(status: number): string | undefined;
}

const text = z
  .string()
  .nullish()
  .transform((value) => value ?? "");
/** A hit as the three services write it: the snippet is `content` or `description`. */
const Hit = z
  .looseObject({ url: z.string(), title: text, content: text, description: text })
  .transform(
    (hit): SearchHit => ({
      url: hit.url,
      title: stripTags(hit.title),
      snippet: stripTags(hit.content || hit.description),
    }),
  );

/** SearXNG's JSON API: `GET /search?q=…&format=json` (the instance must enable `json`). */
const searxng: SearchWire = {
  defaultUrl: null,
  call: (settings, query) => {
    const url = endpoint(settings.url, "search");
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    return { url: url.href, init: { method: "GET", headers: { accept: "application/json" } } };
  },
  parse: (json) => {
    const body = z
      .looseObject({
        results: z.array(Hit),
        answers: z.array(z.union([z.string(), z.looseObject({ answer: z.string() })])).optional(),
      })
      .parse(json);
    const first = body.answers?.[0];
    const answer = typeof first === "string" ? first : first?.answer;
    return { hits: body.results, ...(answer ? { answer } : {}) };
  },
  hint: (status) =>
    status === 403
      ? "SearXNG refuses JSON unless its settings.yml lists json under search.formats"
      : undefined,
};

/** Brave Search's web API: `GET /res/v1/web/search?q=…`, the key in `X-Subscription-Token`. */
const brave: SearchWire = {
  defaultUrl: "https://api.search.brave.com",
  call: (settings, query) => {
    const url = endpoint(settings.url, "res/v1/web/search");
    url.searchParams.set("q", query);
    url.searchParams.set("count", String(settings.maxResults));
    const headers = { accept: "application/json", "x-subscription-token": settings.apiKey ?? "" };
    return { url: url.href, init: { method: "GET", headers } };
  },
  parse: (json) => {
    const body = z
      .looseObject({ web: z.looseObject({ results: z.array(Hit) }).optional() })
      .parse(json);
    return { hits: body.web?.results ?? [] };
  },
  hint: (status) => (status === 401 || status === 403 ? "check the Brave API key" : undefined),
};

/** Tavily's search API: `POST /search` with a JSON body, the key as a bearer token. */
const tavily: SearchWire = {
  defaultUrl: "https://api.tavily.com",
  call: (settings, query) => ({
    url: endpoint(settings.url, "search").href,
    init: {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${settings.apiKey ?? ""}`,
      },
      body: JSON.stringify({ query, max_results: settings.maxResults, search_depth: "basic" }),
    },
  }),
  parse: (json) => {
    const body = z.looseObject({ answer: z.string().nullish(), results: z.array(Hit) }).parse(json);
    return { hits: body.results, ...(body.answer ? { answer: body.answer } : {}) };
  },
  hint: (status) => (status === 401 || status === 403 ? "check the Tavily API key" : undefined),
};

export const SEARCH_WIRES: Record<SearchProviderName, SearchWire> = { searxng, brave, tavily };

/** `path` under `base`, keeping any path the base has (`http://host/searxng` + `search`). */
function endpoint(base: string, path: string): URL {
  return new URL(path, base.endsWith("/") ? base : `${base}/`);
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}
