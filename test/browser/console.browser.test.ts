import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConsole } from "../support/console-build.js";
import { configWith } from "../support/fake-agents.js";
import { startTestServer } from "../support/server-kit.js";

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = new URL("../../test-results/console/", import.meta.url).pathname;
const TOKEN = "console-test-token";

let server: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let page: Page;
let consoleDir: string;
let agentId = "";

/** The API as the test sees it: the same token the console was given. */
async function api(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
  return response.json();
}

const shot = (name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  mkdirSync(SHOTS, { recursive: true });
  consoleDir = mkdtempSync(join(tmpdir(), "holdfast-console-"));
  buildConsole(consoleDir);
  const ask = (name: string, task: string) => ({ type: "qa_assistant", name, task });
  const config = configWith(
    {},
    {
      review: {
        description: "ask, then check",
        stages: [
          { name: "ask", agents: [ask("asker", "{{input}}")] },
          { name: "check", agents: [ask("checker", "check {{previous}}")] },
        ],
      },
    },
  );
  server = await startTestServer({ tokens: new Map([[TOKEN, "default"]]), consoleDir, config });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Offline from the server alone: any request to another origin fails the test.
  await page.route(
    (url) => !url.href.startsWith(server.url),
    (route) => {
      throw new Error(`the console fetched ${route.request().url()}`);
    },
  );
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

describe("the console in Chromium", () => {
  it("is at /, asks for the token when the API answers 401, and keeps it for the tab", async () => {
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe("/console/");
    await page.locator("input[name=token]").waitFor();
    await shot("01-token");
    await page.fill("input[name=token]", TOKEN);
    await page.click("text=Use token");
    await page.locator("form.token").waitFor({ state: "detached" });
    expect(await page.evaluate("sessionStorage.getItem('holdfast.token')")).toBe(TOKEN);
  });

  it("creates an agent from a type", async () => {
    await page.locator("select[name=agent_type] option:text-is('letta_v1_agent')").waitFor({
      state: "attached",
    });
    await page.fill("input[name=name]", "console-e2e");
    await page.selectOption("select[name=agent_type]", "letta_v1_agent");
    await page.click("text=Create");
    await page.waitForURL(/#\/agents\/agent-[^/]+\/chat$/);
    agentId = /#\/agents\/([^/]+)\/chat/.exec(page.url())?.[1] ?? "";
    const agent = (await api("GET", `/v1/agents/${agentId}`)) as {
      name: string;
      agent_type: string;
    };
    expect(agent).toMatchObject({ name: "console-e2e", agent_type: "letta_v1_agent" });
  });

  it("chats, streaming the agent's reply", async () => {
    await page.fill("input[name=message]", "hello there");
    await page.press("input[name=message]", "Enter");
    await page.locator(".msg.assistant", { hasText: "You said: hello there" }).waitFor();
    await page.locator("[data-testid=status]", { hasText: "stopped: end_turn" }).waitFor();
    await shot("02-chat");
  });

  it("shows a tool call waiting for approval, and runs it once approved", async () => {
    await api("PATCH", `/v1/agents/${agentId}/tools/approval/memory_insert`, {
      requires_approval: true,
    });
    await page.fill("input[name=message]", "my name is Ada");
    await page.press("input[name=message]", "Enter");
    const approvals = page.locator("[data-testid=approvals]");
    await approvals.locator("code", { hasText: "memory_insert" }).waitFor();
    await shot("03-approval");
    await approvals.locator("button", { hasText: "Approve" }).click();
    await page.locator(".msg.tool-return", { hasText: "memory_insert → success" }).waitFor();
    await page.locator(".msg.assistant", { hasText: "Noted. I will remember that." }).waitFor();
    await approvals.waitFor({ state: "detached" });
  });

  it("shows the memory block the tool changed, and saves an edit of it", async () => {
    await page.click("nav.tabs >> text=Memory");
    const human = page.locator("textarea[name=human]");
    await human.waitFor();
    expect(await human.inputValue()).toContain("my name is Ada");
    await human.fill("my name is Ada\nlikes green tea");
    await page.locator("form[data-label=human] button", { hasText: "Save" }).click();
    await page.locator("form[data-label=human]", { hasText: "saved" }).waitFor();
    const block = (await api("GET", `/v1/agents/${agentId}/core-memory/blocks/human`)) as {
      value: string;
    };
    expect(block.value).toBe("my name is Ada\nlikes green tea");
  });

  it("adds, searches and deletes archival passages", async () => {
    const passages = page.locator("[data-testid=passages] li");
    for (const text of ["the deploy key rotates on Fridays", "lunch is at noon"]) {
      await page.fill("input[name=passage]", text);
      await page.click("button:text-is('Add')");
      await passages.filter({ hasText: text }).waitFor();
    }
    await page.fill("input[name=archival-search]", "deploy");
    await page.press("input[name=archival-search]", "Enter");
    await passages.filter({ hasText: "lunch" }).waitFor({ state: "detached" });
    expect(await passages.count()).toBe(1);
    await shot("04-memory");
    await passages.first().locator("button", { hasText: "delete" }).click();
    await page.locator("text=No passages match").waitFor();
    const left = (await api("GET", `/v1/agents/${agentId}/archival-memory`)) as { text: string }[];
    expect(left.map((p) => p.text)).toEqual(["lunch is at noon"]);
  });

  it("opens a run's timeline, step by step, with its tool call and return", async () => {
    await page.click("nav.tabs >> text=Runs");
    const rows = page.locator("[data-testid=runs] tbody tr");
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    await shot("05-runs");
    const runs = (await api("GET", `/v1/runs/?agent_id=${agentId}`)) as {
      id: string;
      usage: { step_count: number };
    }[];
    const approved = runs.find((run) => run.usage.step_count === 2);
    expect(approved).toBeDefined();
    await page.click(`a:text-is('${approved?.id}')`);
    const timeline = page.locator("[data-testid=timeline]");
    await timeline.locator(".step").nth(1).waitFor();
    // The input (the user's message) and then the two steps: the tool call, the reply.
    expect(await timeline.locator(".input", { hasText: "my name is Ada" }).count()).toBe(1);
    expect(await timeline.locator(".step").count()).toBe(2);
    const first = timeline.locator(".step").first();
    await first.locator("[data-kind=tool_call_message]", { hasText: "memory_insert" }).waitFor();
    await first.locator("[data-kind=tool_return_message]", { hasText: "success" }).waitFor();
    await timeline
      .locator(".step")
      .nth(1)
      .locator(".msg.assistant", { hasText: "Noted." })
      .waitFor();
    await shot("06-timeline");
  });

  it("shows the sub-agent tree", async () => {
    await page.click("nav.tabs >> text=Sub-agents");
    await page.locator("text=This agent has spawned no sub-agents.").waitFor();
    await shot("07-sub-agents");
  });

  it("lists agent types with their capabilities", async () => {
    await page.click("nav.top >> text=Agent types");
    const card = page.locator("[data-type=letta_v1_agent]");
    await card.locator("code", { hasText: "memory_insert" }).waitFor();
    await page.locator("[data-type=developer]").waitFor();
    await shot("08-types");
  });

  it("pages through many agents, searches them and deletes one", async () => {
    for (let i = 0; i < 55; i++)
      await api("POST", "/v1/agents/", { name: `bulk-${String(i).padStart(2, "0")}` });
    await page.click("nav.top >> text=Agents");
    const rows = page.locator("[data-testid=agents] tbody tr");
    await rows.nth(49).waitFor();
    expect(await rows.count()).toBe(50);
    await page.click("button:text-is('Next')");
    await page.locator("text=page 2").waitFor();
    await rows.filter({ hasText: "bulk-54" }).waitFor();
    expect(await rows.count()).toBe(6);
    await shot("09-agents");
    await page.fill("input[name=search]", "bulk-07");
    await page.press("input[name=search]", "Enter");
    await page.locator("text=page 1").waitFor();
    await rows.filter({ hasText: "bulk-54" }).waitFor({ state: "detached" });
    expect(await rows.count()).toBe(1);
    await rows.first().locator("button", { hasText: "Delete" }).click();
    await rows.first().locator("button", { hasText: "Confirm delete" }).click();
    await page.locator("text=No agents match").waitFor();
    const left = (await api("GET", "/v1/agents/?limit=1000")) as { name: string }[];
    expect(left.map((a) => a.name)).not.toContain("bulk-07");
    expect(left).toHaveLength(55);
  });

  it("renders a long history a page at a time, loading older pages when asked", async () => {
    const agent = (await api("POST", "/v1/agents/", { name: "long-history" })) as { id: string };
    for (let i = 0; i < 130; i++)
      await api("POST", `/v1/agents/${agent.id}/messages`, {
        messages: [{ role: "user", content: `note ${i}` }],
      });
    await page.goto(`${server.url}/console/#/agents/${agent.id}/chat`);
    const shown = page.locator("[data-testid=messages] .msg");
    await page.locator(".msg.assistant", { hasText: "You said: note 129" }).waitFor();
    expect(await shown.count()).toBe(100);
    await page.click("text=Load older messages");
    // "note 80" is the oldest message of the first page: wait for one only the next page has.
    await page.locator(".msg.user", { hasText: "note 79" }).waitFor();
    expect(await shown.count()).toBe(200);
    await page.click("text=Load older messages");
    await page.locator(".msg.user", { hasText: "note 0" }).first().waitFor();
    expect(await shown.count()).toBe(260);
    expect(await page.locator("text=Load older messages").count()).toBe(0);
  });

  it("runs a chain and follows its stages to the end", async () => {
    await page.click("nav.top >> text=Chains");
    const form = page.locator("form", { hasText: "review" });
    await form.locator("input").fill("is the cache warm");
    await form.locator("button", { hasText: "Run" }).click();
    await page.waitForURL(/#\/chain-runs\/[^/]+$/);
    for (const stage of ["ask", "check"])
      await page.locator(`[data-stage=${stage}]`, { hasText: "completed" }).waitFor();
    await page.locator(".facts span", { hasText: "completed" }).waitFor();
    await page.locator("[data-stage=ask] pre", { hasText: "is the cache warm" }).waitFor();
    await shot("10-chain-run");
  });
});
