import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "../fake-openai-server.js";
import { configWith, providerEnv, read, say, spawnAll } from "../support/fake-agents.js";
import { startTestServer } from "../support/server-kit.js";
import { apiAs, builtConsole, openConsole, shot } from "./browser-kit.js";

/**
 * Debugging a run in the console: a step's facts and recorded model exchange, replay against
 * today's tool rules, a fork at a message, and a live sub-agent tree. The `sim/demo` model
 * answers the plain agents; a fake OpenAI-compatible provider scripts the spawning boss.
 */
const TOKEN = "debug-token";
let provider: FakeOpenAiServer;
let server: Awaited<ReturnType<typeof startTestServer>>;
let built: ReturnType<typeof builtConsole>;
let browser: Browser;
let page: Page;
let api: ReturnType<typeof apiAs>;
let agentId = "";
let runId = "";

beforeAll(async () => {
  built = builtConsole();
  provider = await startFakeOpenAiServer((request) => {
    const r = read(request);
    // The worker takes a while, so the tree shows it running before it shows it done.
    if (r.model === "worker-model") return say("twelve gulls", 2500);
    if (r.lastRole === "user") return spawnAll("worker", ["count the gulls"]);
    return say("the worker counted twelve gulls");
  });
  server = await startTestServer({
    tokens: new Map([[TOKEN, "default"]]),
    consoleDir: built.dir,
    env: providerEnv(provider.baseUrl),
    config: configWith({
      boss: { extends: "orchestrator", model: "openai-compatible/boss-model" },
      worker: { extends: "qa_assistant", model: "openai-compatible/worker-model" },
    }),
  });
  api = apiAs(server.url, TOKEN);
  ({ browser, page } = await openConsole(server.url, TOKEN));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await provider?.close();
  built?.remove();
});

describe("debugging a run in the console", () => {
  it("shows each step's model, tokens, durations, tool outcomes and recorded exchange", async () => {
    const agent = (await api("POST", "/v1/agents/", {
      name: "tea-drinker",
      agent_type: "letta_v1_agent",
    })) as { id: string };
    agentId = agent.id;
    const sent = (await api("POST", `/v1/agents/${agentId}/messages`, {
      messages: [{ role: "user", content: "remember I like tea" }],
    })) as { messages: { run_id?: string }[] };
    runId = String(sent.messages.find((m) => m.run_id)?.run_id);
    await page.goto(`${server.url}/console/#/agents/${agentId}/runs/${runId}`);
    const steps = page.locator("[data-testid=timeline] .step");
    await steps.nth(1).waitFor();
    expect(await steps.count()).toBe(2);
    const first = steps.first();
    const facts = first.locator("[data-testid=step-facts]");
    await facts.locator("text=model sim/demo").waitFor();
    expect(await facts.innerText()).toMatch(/tokens \d+ in \/ \d+ out \/ \d+ cached/);
    expect(await facts.innerText()).toMatch(/model latency \d+ ms/);
    expect(await facts.innerText()).toMatch(/queue wait \d+ ms/);
    expect(await facts.locator("[data-tool-call=memory_insert]").innerText()).toMatch(
      /tool memory_insert → success in \d+ ms/,
    );
    // The model request as recorded: the offer and the new message; the response's tool call.
    const request = first.locator("[data-testid=request]");
    expect(await request.innerText()).toMatch(/tool_choice (auto|required)/);
    await request.locator("code", { hasText: "memory_insert" }).waitFor();
    await request.locator("text=user: remember I like tea").waitFor();
    await first.locator("[data-testid=response] code", { hasText: "memory_insert(" }).waitFor();
    // The second step saw the tool's return and answered in text.
    const second = steps.nth(1);
    await second.locator("[data-testid=request]", { hasText: "memory_insert → " }).waitFor();
    await second.locator("[data-testid=response] pre", { hasText: "Noted." }).waitFor();
    await page.locator("[data-testid=not-recorded]", { hasText: "full prompt" }).waitFor();
    await shot(page, "11-timeline-detail");
  });

  it("replays the run: a match, then the step a new tool rule changes", async () => {
    const replay = page.locator("[data-testid=replay]");
    await replay.locator("button", { hasText: "Replay" }).click();
    await replay.locator("[data-testid=replay-outcome]", { hasText: "matches" }).waitFor();
    await api("PATCH", `/v1/agents/${agentId}`, {
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    await replay.locator("button", { hasText: "Replay" }).click();
    const outcome = replay.locator("[data-testid=replay-outcome]", { hasText: "diverges" });
    await outcome.waitFor();
    expect(await outcome.innerText()).toContain("diverges at decision 2");
    expect(await outcome.innerText()).toContain("expected: run 'memory_insert' (call 0)");
    expect(await outcome.innerText()).toContain(
      "actual: ask for approval of 'memory_insert' (call 0)",
    );
    expect(await outcome.innerText()).toContain(
      "reason: a requires_approval tool rule now covers 'memory_insert'",
    );
    // The step that decided differently is marked on the timeline.
    await page.locator("[data-testid=timeline] .step.diverged").first().waitFor();
    await shot(page, "12-replay-diverged");
  });

  it("forks at a message and opens the fork with the history up to it", async () => {
    await page.goto(`${server.url}/console/#/agents/${agentId}/chat`);
    const asked = page.locator(".forkable", { hasText: "remember I like tea" });
    await asked.locator("button", { hasText: "Fork here" }).click();
    await page.waitForURL((url) => !url.hash.includes(agentId) && url.hash.endsWith("/chat"));
    const forkId = /#\/agents\/([^/]+)\/chat/.exec(page.url())?.[1] ?? "";
    await page.locator("h1", { hasText: "tea-drinker (fork)" }).waitFor();
    await page.locator(".msg.user", { hasText: "remember I like tea" }).waitFor();
    expect(await page.locator("[data-testid=messages] .msg.assistant").count()).toBe(0);
    // Memory as of that message: the tool call that saved the preference came after it.
    const human = (await api("GET", `/v1/agents/${forkId}/core-memory/blocks/human`)) as {
      value: string;
    };
    expect(human.value).not.toContain("I like tea");
    await shot(page, "13-fork");
  });

  it("shows the sub-agent tree live: the spawned child running, then done", async () => {
    const boss = (await api("POST", "/v1/agents/", { name: "boss", agent_type: "boss" })) as {
      id: string;
    };
    await page.goto(`${server.url}/console/#/agents/${boss.id}/tree`);
    await page.locator("text=This agent has spawned no sub-agents.").waitFor();
    await api("POST", `/v1/agents/${boss.id}/messages/async`, {
      messages: [{ role: "user", content: "count the gulls" }],
    });
    const child = page.locator("[data-testid=tree] li").first();
    await child.locator("a", { hasText: "running" }).waitFor();
    await shot(page, "14-sub-agents-running");
    await child.locator("a", { hasText: "completed" }).waitFor({ timeout: 20_000 });
    expect(await child.innerText()).toContain("[worker]");
    await shot(page, "15-sub-agents-done");
  });
});
