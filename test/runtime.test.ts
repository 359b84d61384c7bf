import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/core/manual-clock.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { newSessionState } from "../src/records/session-state.js";
import { BusyError } from "../src/runtime/busy-error.js";
import { PendingApprovalError } from "../src/runtime/outcomes.js";
import { createInMemoryStore } from "../src/storage/memory/in-memory-store.js";
import { openSqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import type { Store } from "../src/storage/store.js";
import { runtimeKit } from "./support/runtime-kit.js";

const dirs: string[] = [];
const dbPath = () => {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-runtime-"));
  dirs.push(dir);
  return join(dir, "holdfast.db");
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const userContents = async (store: Store, agentId: string) =>
  (await store.listMessages(agentId, { limit: 1000, order: "asc" })).flatMap((m) =>
    m.message_type === "user_message" ? [m.content] : [],
  );

describe.each([
  ["in-memory", async () => createInMemoryStore()],
  ["sqlite", async () => openSqliteStore(":memory:")],
])("the agent runtime on the %s store", (_name, open) => {
  it("handles concurrent messages to one agent in order, each exactly once", async () => {
    const store = await open();
    const { runtime, create } = runtimeKit(store);
    const id = await create("letta_v1_agent");
    const sent = Array.from({ length: 12 }, (_, i) => `message ${i}`);
    const outcomes = await Promise.all(sent.map((content) => runtime.send(id, { content })));
    expect(outcomes.every((o) => !o.duplicate && o.stopReason === "end_turn")).toBe(true);
    expect(await userContents(store, id)).toEqual(sent);
    await runtime.shutdown();
  });

  it("answers a retried message (same otid) from the first run instead of running it again", async () => {
    const store = await open();
    const { runtime, create } = runtimeKit(store);
    const id = await create("letta_v1_agent");
    const first = await runtime.send(id, { content: "hello", otid: "otid-1" });
    const again = await runtime.send(id, { content: "hello", otid: "otid-1" });
    expect(again.duplicate).toBe(true);
    expect(again.runId).toBe(first.runId);
    expect(await userContents(store, id)).toEqual(["hello"]);
    await runtime.shutdown();
  });

  it("refuses a new message while an approval is pending, as Letta does", async () => {
    const store = await open();
    const model = createSimModel({
      script: () => ({ toolCalls: [{ name: "shell", args: { command: "ls" } }] }),
    });
    const { runtime, create } = runtimeKit(store, { model });
    const id = await create("react_agent");
    const asked = await runtime.send(id, { content: "run: ls" });
    expect(!asked.duplicate && asked.stopReason).toBe("requires_approval");
    await expect(runtime.send(id, { content: "again" })).rejects.toBeInstanceOf(
      PendingApprovalError,
    );
    await runtime.shutdown();
  });

  it("cancels the run in progress", async () => {
    const store = await open();
    const clock = new ManualClock();
    const model = createSimModel({ latency: { clock, ms: 1000 } });
    const { runtime, create } = runtimeKit(store, { clock, model });
    const id = await create("letta_v1_agent");
    const running = runtime.send(id, { content: "slow" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await runtime.cancel(id)).toBe(true);
    const outcome = await running;
    expect(!outcome.duplicate && outcome.stopReason).toBe("cancelled");
    await runtime.shutdown();
  });
});

describe("durability across restarts (SQLite file)", () => {
  it("wakes a paused session at its time after a restart", async () => {
    const path = dbPath();
    const clock = new ManualClock();
    const script = [
      {
        toolCalls: [{ name: "pause_heartbeats", args: { minutes: 10, request_heartbeat: false } }],
      },
      {
        toolCalls: [
          { name: "send_message", args: { message: "I am back", request_heartbeat: false } },
        ],
      },
    ];
    const first = runtimeKit(await openSqliteStore(path), {
      clock,
      model: createSimModel({ script }),
    });
    const id = await first.create("memgpt_agent");
    const paused = await first.runtime.send(id, { content: "rest a while" });
    expect(paused.stopReason).toBe("end_turn");
    expect((await first.runtime.session(id)).phase).toBe("paused");
    await first.runtime.shutdown();

    const store = await openSqliteStore(path);
    const model = createSimModel({ script: [script[1] ?? {}] });
    const second = runtimeKit(store, { clock, model, idPrefix: "second" });
    await second.runtime.start();
    clock.advance(10 * 60_000);
    // Time goes on while the test waits, as it would for a real server.
    for (let i = 0; i < 50 && (await store.loadSession(id))?.phase !== "idle"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      clock.advance(60_000);
    }
    const session = await store.loadSession(id);
    expect(session?.phase).toBe("idle");
    const last = (await store.listMessages(id, { limit: 3, order: "desc" })).map(
      (m) => m.message_type,
    );
    expect(last).toContain("tool_call_message");
    await second.runtime.shutdown();
  });

  it.each([
    ["dies right after the checkpoint that paused it", false],
    ["lost the timer (a database from before timers were committed with checkpoints)", true],
  ])("wakes a paused session whose process %s", async (_what, dropTimer) => {
    const path = dbPath();
    const clock = new ManualClock();
    const pause = {
      toolCalls: [{ name: "pause_heartbeats", args: { minutes: 10, request_heartbeat: false } }],
    };
    const back = {
      toolCalls: [
        { name: "send_message", args: { message: "I am back", request_heartbeat: false } },
      ],
    };
    const disk = await openSqliteStore(path);
    // The process dies the moment the paused checkpoint is on disk: nothing after it runs.
    let dead = false;
    const dying: Store = new Proxy(disk, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          if (dead && name !== "close") throw new Error("the process died");
          const result = await value.apply(target, args);
          const step = args[0] as { state?: { phase?: string } } | undefined;
          if (name === "commit" && step?.state?.phase === "paused") dead = true;
          return result;
        };
      },
    });
    const first = runtimeKit(dying, { clock, model: createSimModel({ script: [pause] }) });
    const id = await first.create("memgpt_agent");
    await first.runtime.send(id, { content: "rest a while" }).catch(() => undefined);
    expect(dead).toBe(true);
    await first.runtime.shutdown().catch(() => undefined);
    await disk.close();

    const store = await openSqliteStore(path);
    expect((await store.loadSession(id))?.phase).toBe("paused");
    if (dropTimer) await store.clearTimer(id, "wake");
    else expect(await store.nextTimer()).toMatchObject({ agent_id: id, kind: "wake" });
    const second = runtimeKit(store, {
      clock,
      model: createSimModel({ script: [back] }),
      idPrefix: "second",
    });
    await second.runtime.start();
    expect(await store.nextTimer()).toMatchObject({ agent_id: id, kind: "wake" });
    clock.advance(10 * 60_000);
    for (let i = 0; i < 50 && (await store.loadSession(id))?.phase !== "idle"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      clock.advance(60_000);
    }
    expect((await store.loadSession(id))?.phase).toBe("idle");
    expect(await store.nextTimer()).toBeNull();
    await second.runtime.shutdown();
  });

  it("resumes a session that a crash interrupted when the server starts again", async () => {
    const path = dbPath();
    const store = await openSqliteStore(path);
    let commits = 0;
    const crashing: Store = Object.create(store, {
      commit: {
        value: async (...args: Parameters<Store["commit"]>) => {
          commits += 1;
          if (commits === 3) throw new Error("power cut");
          return store.commit(...args);
        },
      },
    });
    const first = runtimeKit(crashing);
    const id = await first.create("memgpt_agent");
    await expect(first.runtime.send(id, { content: "My name is Ada" })).rejects.toThrow(
      "power cut",
    );
    expect((await store.loadSession(id))?.phase).toBe("running");

    const second = runtimeKit(await openSqliteStore(path), { idPrefix: "second" });
    await second.runtime.start();
    const reopened = await openSqliteStore(path);
    expect((await reopened.loadSession(id))?.phase).toBe("idle");
    const human = (await reopened.loadBlocks(id)).find((b) => b.label === "human");
    expect(human?.value).toBe("My name is Ada");
    await second.runtime.shutdown();
  });
});

describe("an interrupted turn and a new message", () => {
  it("finishes the interrupted turn before it takes the new message", async () => {
    const store = createInMemoryStore();
    let commits = 0;
    const crashing: Store = Object.create(store, {
      commit: {
        value: async (...args: Parameters<Store["commit"]>) => {
          commits += 1;
          if (commits === 2) throw new Error("power cut");
          return store.commit(...args);
        },
      },
    });
    const first = runtimeKit(crashing);
    const id = await first.create("letta_v1_agent");
    await expect(first.runtime.send(id, { content: "first" })).rejects.toThrow("power cut");
    const second = runtimeKit(store, { idPrefix: "second" });
    const outcome = await second.runtime.send(id, { content: "second" });
    expect(!outcome.duplicate && outcome.stopReason).toBe("end_turn");
    const types = (await store.listMessages(id, { limit: 100, order: "asc" })).map((m) =>
      m.message_type === "user_message" ? `user:${m.content}` : m.message_type,
    );
    expect(types.indexOf("user:second")).toBeGreaterThan(
      types.lastIndexOf("assistant_message") - 2,
    );
    expect(types.filter((t) => t === "assistant_message")).toHaveLength(2);
  });
});

describe("session handoff", () => {
  // Regression, found by DST (seeds 22 and 223, mixed faults): a handed-over session kept the
  // source's run, which the target could not update (runs belong to one agent), and handing
  // a session back copied its messages into the original agent a second time.
  it("hands a session back and forth without duplicating messages, each run owned by its agent", async () => {
    const store = createInMemoryStore();
    const model = createSimModel({
      script: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "saved" }
          : { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "tea" } }] },
    });
    const { runtime, create } = runtimeKit(store, { model });
    const a = await create("letta_v1_agent", "a");
    const b = await create("letta_v1_agent", "b");
    await runtime.updateAgent(a, {
      tool_rules: [{ type: "requires_approval", tool_name: "memory_insert" }],
    });
    await runtime.send(a, { content: "note it", otid: "otid-1" });
    const session = (await runtime.session(a)).session_id;

    await runtime.transferSession(a, session, b);
    const back = await runtime.transferSession(b, session, a);
    const waiting = back.pending.filter((c) => c.status === "awaiting_approval");
    const done = await runtime.approve(
      a,
      waiting.map((c) => ({ tool_call_id: c.tool_call.tool_call_id, approve: true, reason: null })),
    );
    expect(done.stopReason).toBe("end_turn");
    const run = done.runId ? await store.getRun(done.runId) : null;
    expect(run).toMatchObject({ agent_id: a, status: "completed" });
    const users = (await store.listMessages(a, { limit: 100, order: "asc" })).filter(
      (m) => m.message_type === "user_message",
    );
    expect(users).toHaveLength(1);
    await runtime.shutdown();
  });
});

describe("reviewed failure modes", () => {
  // Regression (code review): a message queued to the source while its session was being
  // handed over ran, and the handover then wiped the session it had produced.
  it("refuses new work on an agent while it hands its session over, losing nothing", async () => {
    const store = createInMemoryStore();
    const { runtime, create } = runtimeKit(store);
    const a = await create("letta_v1_agent", "a");
    const b = await create("letta_v1_agent", "b");
    await runtime.send(a, { content: "hello" });
    const session = (await runtime.session(a)).session_id;
    const handover = runtime.transferSession(a, session, b);
    const meanwhile = runtime.send(a, { content: "during the handover" });
    await handover;
    await expect(meanwhile).rejects.toBeInstanceOf(BusyError);
    const after = await runtime.send(a, { content: "after the handover" });
    expect(!after.duplicate && after.stopReason).toBe("end_turn");
    await runtime.shutdown();
  });

  // Regression (code review): one interrupted agent that could not load (its type removed)
  // made start() reject, and the server never came up.
  it("starts even when an interrupted agent cannot be resumed, and reports it", async () => {
    const store = createInMemoryStore();
    const { create } = runtimeKit(store);
    const id = await create("letta_v1_agent");
    const record = await store.getAgent(id);
    if (!record) throw new Error("no agent");
    await store.commit({
      agentId: id,
      state: { ...newSessionState("s"), phase: "running" },
      messages: [],
      memory: { blocks: [], passages: [] },
    });
    await store.updateAgent({ ...record, agent_type: "removed_type" });
    const { runtime } = runtimeKit(store, { idPrefix: "second" });
    const failed = await runtime.start();
    expect(failed.map((f) => f.agentId)).toEqual([id]);
    await runtime.shutdown();
  });
});
