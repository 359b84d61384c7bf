import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalSite, reply, startLocalSite } from "../../../test/support/local-site.js";
import { systemClock } from "../../core/clock.js";
import type { AgentMemory } from "../../memory/agent-memory.js";
import type { ToolContext } from "../tool.js";
import { createWebSearch } from "./web-search.js";
import { DEFAULT_WEB_SETTINGS, type SearchSettings } from "./web-settings.js";

const KEY = "tvly-very-secret-key";

/** SearXNG, Brave and Tavily answers in their own wire formats, as their APIs send them. */
let site: LocalSite;
beforeAll(async () => {
  site = await startLocalSite({
    "/searx/search": reply(
      200,
      "application/json",
      JSON.stringify({
        query: "green tea",
        number_of_results: 2,
        results: [
          {
            url: "https://tea.example/green",
            title: "Green tea",
            content: "How to brew it.",
            engine: "duckduckgo",
            score: 2,
          },
          { url: "https://tea.example/matcha", title: "Matcha", content: null, engines: ["bing"] },
        ],
        answers: [],
        suggestions: ["green tea benefits"],
        infoboxes: [],
      }),
    ),
    "/res/v1/web/search": (request, response) => {
      const ok = request.headers["x-subscription-token"] === KEY;
      response.writeHead(ok ? 200 : 401, { "content-type": "application/json" }).end(
        JSON.stringify({
          type: "search",
          query: { original: "green tea" },
          web: {
            type: "search",
            results: [
              {
                title: "Green <strong>tea</strong>",
                url: "https://tea.example/green",
                description: "All about <strong>green tea</strong> &amp; more.",
              },
            ],
          },
        }),
      );
    },
    "/search": (request, response) => {
      const ok = request.headers.authorization === `Bearer ${KEY}`;
      response.writeHead(ok ? 200 : 401, { "content-type": "application/json" }).end(
        ok
          ? JSON.stringify({
              query: JSON.parse(request.body).query,
              answer: "Brew green tea at 80 °C.",
              results: [
                {
                  title: "Green tea",
                  url: "https://tea.example/green",
                  content: "Brew at 80 °C.",
                  score: 0.9,
                },
              ],
              response_time: 0.5,
            })
          : JSON.stringify({
              detail: {
                error: `Unauthorized: missing or invalid API key ${request.headers.authorization}`,
              },
            }),
      );
    },
    "/forbidden/search": reply(403, "text/html", "<h1>403 Forbidden</h1>"),
    "/garbage/search": reply(200, "text/html", "<html>not json</html>"),
    "/empty/search": reply(200, "application/json", JSON.stringify({ results: [] })),
  });
});
afterAll(() => site.close());

const context = (): ToolContext => ({
  agentId: "agent-test",
  workspace: { root: null, readOnly: true, network: false },
  memory: {} as AgentMemory,
  clock: systemClock,
  signal: new AbortController().signal,
  idempotencyKey: "call-1",
});
const search = (settings: Partial<SearchSettings>, query = "green tea") =>
  createWebSearch(
    { provider: "searxng", url: `${site.url}/searx`, maxResults: 5, ...settings },
    DEFAULT_WEB_SETTINGS,
  ).run({ query }, context());

describe("web_search", () => {
  it("asks SearXNG's JSON API and lists titles, links and snippets", async () => {
    const result = await search({});
    expect(site.requests.at(-1)?.path).toBe("/searx/search?q=green+tea&format=json");
    expect(result).toEqual({
      status: "success",
      output: [
        "1. Green tea",
        "   https://tea.example/green",
        "   How to brew it.",
        "2. Matcha",
        "   https://tea.example/matcha",
      ].join("\n"),
    });
  });

  it("keeps to max_results", async () => {
    expect((await search({ maxResults: 1 })).output).not.toContain("Matcha");
  });

  it("asks Brave with its key header, and strips the markup of its snippets", async () => {
    const result = await search({ provider: "brave", url: site.url, apiKey: KEY });
    expect(site.requests.at(-1)?.path).toBe("/res/v1/web/search?q=green+tea&count=5");
    expect(result.output).toBe(
      "1. Green tea\n   https://tea.example/green\n   All about green tea & more.",
    );
  });

  it("asks Tavily with a bearer key and a JSON body, and shows its answer first", async () => {
    const result = await search({ provider: "tavily", url: site.url, apiKey: KEY });
    const sent = site.requests.at(-1);
    expect(sent?.method).toBe("POST");
    expect(JSON.parse(sent?.body ?? "")).toEqual({
      query: "green tea",
      max_results: 5,
      search_depth: "basic",
    });
    expect(result.output).toBe(
      "Answer: Brew green tea at 80 °C.\n\n1. Green tea\n   https://tea.example/green\n   Brew at 80 °C.",
    );
  });

  it("turns a provider's refusal into a readable error that never shows the key", async () => {
    const wrong = await search({ provider: "tavily", url: site.url, apiKey: `${KEY}-wrong` });
    expect(wrong).toEqual({
      status: "error",
      output: "web_search (tavily): the provider answered 401 (check the Tavily API key)",
    });
    const searx = await search({ url: `${site.url}/forbidden` });
    expect(searx.output).toBe(
      "web_search (searxng): the provider answered 403 (SearXNG refuses JSON unless its settings.yml lists json under search.formats)",
    );
  });

  it("reports an answer in the wrong format, no results, an empty query and an unreachable provider", async () => {
    expect((await search({ url: `${site.url}/garbage` })).output).toBe(
      "web_search (searxng): the provider's answer is not in the expected JSON format",
    );
    expect(await search({ url: `${site.url}/empty` })).toEqual({
      status: "success",
      output: "No results.",
    });
    expect((await search({}, "  ")).output).toBe("web_search: the query is empty");
    const closed = await startLocalSite({});
    await closed.close();
    const down = await search({ url: closed.url });
    expect(down.status).toBe("error");
    expect(down.output).toMatch(
      /^web_search \(searxng\): the provider cannot be reached: .*ECONNREFUSED/,
    );
  });
});
