import { afterEach, describe, expect, it, vi } from "vitest";
import { serviceKit } from "../../test/support/service-kit.js";
import { ValidationError } from "../core/errors.js";

/** Lets the loop reach its sleep (real time: the manual clock only moves when told). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

const kits: ReturnType<typeof serviceKit>[] = [];
afterEach(() => {
  for (const kit of kits.splice(0)) kit.scheduleLoop.stop();
});

async function setup() {
  const kit = serviceKit();
  kits.push(kit);
  const agentId = (await kit.services.agents.create("p1", { agent_type: "letta_v1_agent" })).id;
  const userTexts = async () =>
    (await kit.store.listMessages(agentId, { limit: 100, order: "asc" }))
      .filter((m) => m.message_type === "user_message")
      .map((m) => ("content" in m ? m.content : ""));
  return { ...kit, agentId, userTexts, schedules: kit.services.schedules };
}

describe("scheduled messages", () => {
  it("sends a one-time message when its time comes on the clock, once, and forgets it", async () => {
    const { clock, agentId, userTexts, schedules, scheduleLoop } = await setup();
    const at = clock.now() + 60_000;
    const made = await schedules.create("p1", agentId, {
      messages: [{ role: "user", content: "time for the report" }],
      schedule: { type: "one-time", scheduled_at: at },
    });
    expect(made.next_scheduled_at).toBe(new Date(at).toISOString());
    scheduleLoop.start();
    await settle();
    clock.advance(30_000);
    await settle();
    expect(await userTexts()).toEqual([]);
    clock.advance(30_000);
    await vi.waitFor(async () => expect(await userTexts()).toEqual(["time for the report"]));
    await vi.waitFor(async () =>
      expect((await schedules.list("p1", agentId, { limit: 50 })).scheduled_messages).toEqual([]),
    );
    clock.advance(120_000);
    await settle();
    expect(await userTexts()).toEqual(["time for the report"]);
  });

  it("sends a firing repeated after a crash (sent, not yet forgotten) only once", async () => {
    const { clock, store, agentId, userTexts, schedules, scheduleLoop } = await setup();
    const { id } = await schedules.create("p1", agentId, {
      messages: [{ role: "user", content: "once only" }],
      schedule: { scheduled_at: clock.now() },
    });
    const record = await store.schedules.get(id);
    if (!record) throw new Error("not stored");
    await scheduleLoop.fire(record);
    // As if the server died after sending: the record is put back and fires again.
    await store.schedules.put(record);
    await scheduleLoop.fire(record);
    expect(await userTexts()).toEqual(["once only"]);
    expect(await store.schedules.get(id)).toBeNull();
  });

  it("moves a recurring message on to its next cron time after each firing", async () => {
    const { clock, store, agentId, userTexts, schedules, scheduleLoop } = await setup();
    // The manual clock starts at 2026-01-01T00:00Z.
    const { id, next_scheduled_at } = await schedules.create("p1", agentId, {
      messages: [{ role: "user", content: [{ type: "text", text: "tick" }] }],
      schedule: { type: "recurring", cron_expression: "*/15 * * * *" },
    });
    expect(next_scheduled_at).toBe("2026-01-01T00:15:00.000Z");
    scheduleLoop.start();
    await settle(); // the loop is asleep until the first firing
    clock.advance(15 * 60_000);
    await vi.waitFor(async () => expect(await userTexts()).toEqual(["tick"]));
    await vi.waitFor(async () =>
      expect((await schedules.get("p1", agentId, id)).next_scheduled_time).toBe(
        "2026-01-01T00:30:00.000Z",
      ),
    );
    await settle();
    clock.advance(15 * 60_000);
    await vi.waitFor(async () => expect(await userTexts()).toEqual(["tick", "tick"]));
    expect(await store.schedules.get(id)).not.toBeNull();
  });

  it("refuses a bad cron expression and a callback_url with the field path", async () => {
    const { agentId, schedules } = await setup();
    const messages = [{ role: "user" as const, content: "x" }];
    const refused = async (body: Parameters<typeof schedules.create>[2]) =>
      schedules.create("p1", agentId, body).then(
        () => null,
        (error: unknown) => (error instanceof ValidationError ? error.errors[0]?.path : error),
      );
    expect(
      await refused({ messages, schedule: { type: "recurring", cron_expression: "99 * * * *" } }),
    ).toBe("schedule.cron_expression");
    expect(
      await refused({ messages, schedule: { scheduled_at: 1 }, callback_url: "http://x" }),
    ).toBe("callback_url");
  });

  it("answers 404 for another agent's scheduled message", async () => {
    const { agentId, services, schedules, clock } = await setup();
    const other = (await services.agents.create("p1", { agent_type: "letta_v1_agent" })).id;
    const { id } = await schedules.create("p1", agentId, {
      messages: [{ role: "user", content: "x" }],
      schedule: { scheduled_at: clock.now() + 1_000 },
    });
    await expect(schedules.get("p1", other, id)).rejects.toThrow(/not found|no /i);
    await expect(schedules.get("p2", agentId, id)).rejects.toThrow(/not found|no /i);
  });
});
