import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedAgents, seedHistory } from "../support/seed.js";
import { startTestServer } from "../support/server-kit.js";
import { apiAs, builtConsole, openConsole, shot } from "./browser-kit.js";

/**
 * The console over 10,000 agents and a 5,000-message history, seeded straight into the
 * server's store (the API would need a request, and a model turn, per item): the first pages
 * render, search finds one agent among them, and older messages load a page at a time.
 */
const TOKEN = "scale-token";
const AGENTS = 10_000;
const MESSAGES = 5_000;
let server: Awaited<ReturnType<typeof startTestServer>>;
let built: ReturnType<typeof builtConsole>;
let browser: Browser;
let page: Page;
let historyId = "";

beforeAll(async () => {
  built = builtConsole();
  server = await startTestServer({ tokens: new Map([[TOKEN, "default"]]), consoleDir: built.dir });
  const { store, config } = server.engine;
  await seedAgents(store, config, { projectId: "default", count: AGENTS, prefix: "fleet" });
  const agent = (await apiAs(server.url, TOKEN)("POST", "/v1/agents/", {
    name: "long-history",
  })) as { id: string };
  historyId = agent.id;
  await seedHistory(store, historyId, MESSAGES);
  ({ browser, page } = await openConsole(server.url, TOKEN));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  built?.remove();
});

describe("the console at scale", () => {
  it("shows the first page of 10,000 agents, the next, and finds one by name", async () => {
    await page.goto(`${server.url}/console/#/agents`);
    const rows = page.locator("[data-testid=agents] tbody tr");
    await rows.filter({ hasText: "fleet-0000" }).waitFor();
    expect(await rows.count()).toBe(50);
    expect(await rows.last().innerText()).toContain("fleet-0049");
    await page.click("button:text-is('Next')");
    await page.locator("text=page 2").waitFor();
    await rows.filter({ hasText: "fleet-0050" }).waitFor();
    expect(await rows.count()).toBe(50);
    await shot(page, "16-agents-10k");
    await page.fill("input[name=search]", "fleet-7321");
    await page.press("input[name=search]", "Enter");
    await rows.filter({ hasText: "fleet-0050" }).waitFor({ state: "detached" });
    await rows.filter({ hasText: "fleet-7321" }).waitFor();
    expect(await rows.count()).toBe(1);
  });

  it("shows the newest page of a 5,000-message history and pages back to older messages", async () => {
    await page.goto(`${server.url}/console/#/agents/${historyId}/chat`);
    const shown = page.locator("[data-testid=messages] .msg");
    await page.locator(".msg.assistant", { hasText: "answer 4999" }).waitFor();
    expect(await shown.count()).toBe(100);
    expect(await shown.first().innerText()).toContain("question 4900");
    // The view follows the newest message: it is scrolled to the bottom.
    const atBottom = await page
      .locator("[data-testid=messages]")
      .evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 40);
    expect(atBottom).toBe(true);
    await shot(page, "17-history-5000");
    for (let pages = 2; pages <= 3; pages++) {
      await page.locator("[data-testid=messages]").evaluate((el) => {
        el.scrollTop = 0;
      });
      await page.click("text=Load older messages");
      await expect.poll(() => shown.count()).toBe(pages * 100);
    }
    expect(await shown.first().innerText()).toContain("question 4700");
    await page.locator(".msg.assistant", { hasText: "answer 4799" }).waitFor();
  });
});
