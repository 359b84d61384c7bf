import Letta from "@letta-ai/letta-client";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, stopServer } from "./cli.js";
import { startTestServer } from "./support/server-kit.js";
import { tempDir } from "./support/temp-dirs.js";
import { until } from "./support/until.js";

// Issue #15: Letta's scheduled messages through the official client, and across a restart.

const clientAt = (baseURL: string) => new Letta({ baseURL, apiKey: null, maxRetries: 0 });

async function userTexts(client: Letta, agentId: string): Promise<string[]> {
  const page = await client.agents.messages.list(agentId, { order: "asc", limit: 100 });
  return page.items.flatMap((m) =>
    m.message_type === "user_message" && typeof m.content === "string" ? [m.content] : [],
  );
}

describe("scheduled messages through the official client", () => {
  let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
  afterAll(() => server?.close());

  it("creates, lists, reads and deletes, and a due message reaches the agent once", async () => {
    server = await startTestServer();
    const client = server.client();
    const agent = await client.agents.create({ agent_type: "letta_v1_agent" });
    const later = await client.agents.schedule.create(agent.id, {
      messages: [{ role: "user", content: "next week" }],
      schedule: { type: "one-time", scheduled_at: Date.now() + 7 * 24 * 3600_000 },
    });
    const cron = await client.agents.schedule.create(agent.id, {
      messages: [{ role: "user", content: "daily" }],
      schedule: { type: "recurring", cron_expression: "0 9 * * *" },
    });
    expect(cron.next_scheduled_at).toMatch(/T09:00:00\.000Z$/);
    const listed = await client.agents.schedule.list(agent.id);
    expect(listed.scheduled_messages.map((s) => s.id)).toEqual([later.id, cron.id]);
    expect(listed.has_next_page).toBe(false);
    const one = await client.agents.schedule.retrieve(cron.id, { agent_id: agent.id });
    expect(one).toMatchObject({
      agent_id: agent.id,
      schedule: { type: "recurring", cron_expression: "0 9 * * *" },
      message: { messages: [{ role: "user", content: "daily" }] },
    });
    expect(await client.agents.schedule.delete(later.id, { agent_id: agent.id })).toEqual({
      success: true,
    });
    await expect(
      client.agents.schedule.retrieve(later.id, { agent_id: agent.id }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      client.agents.schedule.create(agent.id, {
        messages: [{ role: "user", content: "x" }],
        schedule: { type: "recurring", cron_expression: "every day" },
      }),
    ).rejects.toMatchObject({ status: 422 });
    // Past what a date can hold: refused before anything is stored, and the list still answers.
    const stored = (await client.agents.schedule.list(agent.id)).scheduled_messages.length;
    await expect(
      client.agents.schedule.create(agent.id, {
        messages: [{ role: "user", content: "x" }],
        schedule: { scheduled_at: 8_640_000_000_000_001 },
      }),
    ).rejects.toMatchObject({
      status: 422,
      error: { errors: [{ path: "schedule.scheduled_at" }] },
    });
    expect((await client.agents.schedule.list(agent.id)).scheduled_messages).toHaveLength(stored);

    // Already due: the loop sends it at once.
    await client.agents.schedule.create(agent.id, {
      messages: [{ role: "user", content: "due now" }],
      schedule: { scheduled_at: Date.now() - 1 },
    });
    await until(async () => (await userTexts(client, agent.id)).includes("due now"));
    await until(
      async () => (await client.agents.schedule.list(agent.id)).scheduled_messages.length === 1,
    );
    expect(await userTexts(client, agent.id)).toEqual(["due now"]);
  });
});

describe("a scheduled message across a kill -9", () => {
  const cwd = tempDir("holdfast-schedule-crash-");
  const processes: Awaited<ReturnType<typeof startServer>>["process"][] = [];
  afterAll(async () => {
    for (const child of processes) await stopServer(child);
  });

  it("survives the restart and fires once after it", async () => {
    const first = await startServer([], { cwd });
    processes.push(first.process);
    const before = clientAt(first.url);
    const agent = await before.agents.create({ agent_type: "letta_v1_agent" });
    const { id } = await before.agents.schedule.create(agent.id, {
      messages: [{ role: "user", content: "after the crash" }],
      schedule: { scheduled_at: Date.now() + 3_000 },
    });
    first.process.kill("SIGKILL");
    await stopServer(first.process);

    const second = await startServer([], { cwd });
    processes.push(second.process);
    const after = clientAt(second.url);
    await until(async () => (await userTexts(after, agent.id)).length > 0);
    await until(
      async () => (await after.agents.schedule.list(agent.id)).scheduled_messages.length === 0,
    );
    expect(await userTexts(after, agent.id)).toEqual(["after the crash"]);
    await expect(after.agents.schedule.retrieve(id, { agent_id: agent.id })).rejects.toMatchObject({
      status: 404,
    });
  });
});
