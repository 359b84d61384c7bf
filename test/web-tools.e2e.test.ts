import { afterEach, describe, expect, it } from "vitest";
import { checkConfig, type HoldfastConfig } from "../src/config/config-file.js";
import { NO_SEARCH_PROVIDER } from "../src/config/web-section.js";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./fake-openai-server.js";
import { type LocalSite, reply, startLocalSite } from "./support/local-site.js";
import { startTestServer } from "./support/server-kit.js";

// Issue #12, "Web tools that work": a researcher's model calls web_search on a SearXNG-compatible
// server and web_fetch on a page, both real HTTP servers on loopback, and reads what they say;
// without a search provider, every view of the type says why web_search is not offered.

let site: LocalSite | undefined;
let provider: FakeOpenAiServer | undefined;
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  await provider?.close();
  await site?.close();
  server = provider = site = undefined;
});

function configOf(document: unknown): HoldfastConfig {
  const result = checkConfig(document);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

async function startSite() {
  return startLocalSite({
    "/search": (request, response) => {
      const query = new URL(request.path, "http://x").searchParams.get("q");
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          query,
          results: [
            {
              url: "https://tea.example/green",
              title: "Green tea guide",
              content: "Brewing temperatures.",
            },
          ],
          answers: [],
        }),
      );
    },
    "/green": reply(
      200,
      "text/html",
      "<html><head><title>Green tea guide</title></head><body><nav>Menu</nav><h1>Green tea</h1><p>Brew at <b>80 °C</b> for two minutes.</p></body></html>",
    ),
  });
}

const MODEL_ENV = (baseUrl: string) => ({
  OPENAI_COMPATIBLE_BASE_URL: baseUrl,
  OPENAI_COMPATIBLE_API_KEY: "k",
});

type Message = { role: string; content?: unknown; tool_call_id?: string };
type Client = ReturnType<NonNullable<typeof server>["client"]>;

/** Letta's client types `agent_type` as Letta's own names; Holdfast's presets are more. */
const create = (client: Client, type: string, model?: string) =>
  client.agents.create({ agent_type: type, ...(model ? { model } : {}) } as unknown as Parameters<
    Client["agents"]["create"]
  >[0]);

describe("web tools in a turn", () => {
  it("lets a researcher search and fetch over real HTTP and read the results", async () => {
    site = await startSite();
    const page = `${site.url}/green`;
    provider = await startFakeOpenAiServer([
      {
        type: "completion",
        toolCalls: [
          { id: "call-s", name: "web_search", arguments: '{"query":"green tea temperature"}' },
        ],
      },
      {
        type: "completion",
        toolCalls: [{ id: "call-f", name: "web_fetch", arguments: JSON.stringify({ url: page }) }],
      },
      { type: "completion", text: "Brew green tea at 80 °C." },
    ]);
    const config = configOf({
      tools: {
        web: {
          search: { provider: "searxng", url: site.url },
          allowed_networks: ["127.0.0.1/32"],
        },
      },
    });
    server = await startTestServer({ config, env: MODEL_ENV(provider.baseUrl) });
    const client = server.client();
    const agent = await create(client, "researcher", "openai-compatible/fake-model");
    const response = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "How hot should green tea be?" }],
    });
    const returns = response.messages.flatMap((m) =>
      m.message_type === "tool_return_message" ? [m] : [],
    );
    expect(returns.map((m) => m.status)).toEqual(["success", "success"]);
    expect(returns[0]?.tool_return).toBe(
      "1. Green tea guide\n   https://tea.example/green\n   Brewing temperatures.",
    );
    expect(returns[1]?.tool_return).toContain("Title: Green tea guide");
    expect(returns[1]?.tool_return).toContain("# Green tea\n\nBrew at **80 °C** for two minutes.");
    expect(returns[1]?.tool_return).not.toContain("Menu");

    // The site saw the search and the fetch, and the model was given what they returned.
    expect(site.requests.map((r) => r.path)).toEqual([
      "/search?q=green+tea+temperature&format=json",
      "/green",
    ]);
    const first = provider.requests[0]?.body as { tools: { function: { name: string } }[] };
    expect(first.tools.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(["web_search", "web_fetch"]),
    );
    const last = provider.requests[2]?.body as { messages: Message[] };
    const toolMessages = last.messages.filter((m) => m.role === "tool");
    expect(JSON.stringify(toolMessages)).toContain("Brew at **80 °C** for two minutes.");
  });

  it("refuses a loopback page when the config does not allow it, as a tool error", async () => {
    site = await startSite();
    provider = await startFakeOpenAiServer([
      {
        type: "completion",
        toolCalls: [
          {
            id: "call-f",
            name: "web_fetch",
            arguments: JSON.stringify({ url: `${site.url}/green` }),
          },
        ],
      },
      { type: "completion", text: "I could not read it." },
    ]);
    server = await startTestServer({ env: MODEL_ENV(provider.baseUrl) });
    const client = server.client();
    const agent = await create(client, "researcher", "openai-compatible/fake-model");
    const response = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "Read it" }],
    });
    const returned = response.messages.find((m) => m.message_type === "tool_return_message");
    expect(returned).toMatchObject({
      status: "error",
      tool_return: `web_fetch ${site.url}/green: refused to connect to 127.0.0.1: it is a loopback address`,
    });
    expect(site.requests).toEqual([]);
  });
});

describe("http_request in a turn", () => {
  it("sends a POST for a type with the http pack and full access", async () => {
    site = await startLocalSite({
      "/hooks/notify": (request, response) =>
        response
          .writeHead(202, { "content-type": "application/json" })
          .end(JSON.stringify({ received: JSON.parse(request.body) })),
    });
    const call = {
      method: "POST",
      url: `${site.url}/hooks/notify`,
      headers: { "content-type": "application/json" },
      body: '{"text":"done"}',
    };
    provider = await startFakeOpenAiServer([
      {
        type: "completion",
        toolCalls: [{ id: "call-h", name: "http_request", arguments: JSON.stringify(call) }],
      },
      { type: "completion", text: "Notified." },
    ]);
    const config = configOf({
      tools: { web: { allowed_networks: ["127.0.0.1/32"] } },
      types: {
        notifier: {
          extends: "letta_v1_agent",
          tools: { packs: ["http"], access: "full", approval: "never" },
          // The standard profile asks before every network call; this test is about the call.
          policy_profile: "permissive",
        },
      },
    });
    server = await startTestServer({ config, env: MODEL_ENV(provider.baseUrl) });
    const client = server.client();
    const agent = await create(client, "notifier", "openai-compatible/fake-model");
    const response = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "Tell the hook we are done" }],
    });
    const returned = response.messages.find((m) => m.message_type === "tool_return_message");
    expect(returned).toMatchObject({ status: "success" });
    expect((returned as { tool_return: string }).tool_return).toMatch(
      /^HTTP 202 Accepted[\s\S]*\{"received":\{"text":"done"\}\}$/,
    );
    expect(site.requests).toMatchObject([
      { method: "POST", path: "/hooks/notify", body: '{"text":"done"}' },
    ]);
  });
});

interface TypeBody {
  capabilities: { offered: { name: string }[]; withheld: { name: string; reason: string }[] };
}

describe("web_search in capabilities", () => {
  async function views(config?: HoldfastConfig) {
    server = await startTestServer(config ? { config } : {});
    const type = (await (
      await fetch(`${server.url}/v1/agent-types/researcher`)
    ).json()) as TypeBody;
    const agent = await create(server.client(), "researcher");
    const tools = (await (await fetch(`${server.url}/v1/agents/${agent.id}/tools`)).json()) as {
      name: string;
    }[];
    return { type: type.capabilities, tools: tools.map((t) => t.name) };
  }

  it("withholds web_search with the reason when no provider is configured", async () => {
    const { type, tools } = await views();
    expect(type.offered.map((t) => t.name)).not.toContain("web_search");
    expect(type.offered.map((t) => t.name)).toContain("web_fetch");
    expect(type.withheld).toContainEqual({ name: "web_search", reason: NO_SEARCH_PROVIDER });
    expect(tools).not.toContain("web_search");
    expect(tools).toContain("web_fetch");
  });

  it("offers web_search when a provider is configured", async () => {
    const config = configOf({
      tools: { web: { search: { provider: "searxng", url: "http://127.0.0.1:9" } } },
    });
    const { type, tools } = await views(config);
    expect(type.offered.map((t) => t.name)).toEqual(
      expect.arrayContaining(["web_search", "web_fetch"]),
    );
    expect(type.withheld.map((t) => t.name)).not.toContain("web_search");
    expect(tools).toEqual(expect.arrayContaining(["web_search", "web_fetch"]));
  });

  it("withholds it, naming the variable, when the provider's key is missing", async () => {
    server = await startTestServer({
      config: configOf({ tools: { web: { search: { provider: "brave" } } } }),
      env: {},
    });
    const type = (await (
      await fetch(`${server.url}/v1/agent-types/researcher`)
    ).json()) as TypeBody;
    expect(type.capabilities.withheld).toContainEqual({
      name: "web_search",
      reason:
        "search provider 'brave' has no API key (set BRAVE_API_KEY or tools.web.search.api_key)",
    });
  });
});
