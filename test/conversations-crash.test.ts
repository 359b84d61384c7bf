import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ModelRequest } from "../src/llm/model.js";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { openSqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import type { Store } from "../src/storage/store.js";
import { runtimeKit } from "./support/runtime-kit.js";

// Decision 026: a run belongs to one conversation, recorded in the checkpoint; a crash mid-run
// resumes it in that conversation, with that conversation's history only.

const dir = mkdtempSync(join(tmpdir(), "holdfast-conv-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const users = (request: ModelRequest) =>
  request.messages.flatMap((m) => (m.role === "user" ? [m.content] : [])).join("|");

const script = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `saved after ${users(request)}` };
  if (last?.role === "user" && last.content.includes("remember"))
    return { toolCalls: [{ name: "memory_insert", args: { label: "human", new_str: "tea" } }] };
  return { text: `saw ${users(request)}` };
};

describe("a crash in a conversation's run (decision 026)", () => {
  it("resumes the run in its conversation after a restart, with that history only", async () => {
    const path = join(dir, "crash.db");
    const store = await openSqliteStore(path);
    let commits = 0;
    let armed = false;
    const crashing: Store = Object.create(store, {
      commit: {
        value: async (...args: Parameters<Store["commit"]>) => {
          if (armed && ++commits === 2) throw new Error("power cut");
          return store.commit(...args);
        },
      },
    });
    const first = runtimeKit(crashing, { model: createSimModel({ script }) });
    const id = await first.create("letta_v1_agent");
    await first.runtime.send(id, { content: "in the default conversation" });
    armed = true;
    const sent = first.runtime.send(id, { content: "remember tea" }, { conversationId: "conv-a" });
    await expect(sent).rejects.toThrow("power cut");
    expect(await store.loadSession(id)).toMatchObject({
      phase: "running",
      conversation_id: "conv-a",
    });
    await first.runtime.shutdown().catch(() => undefined);
    await store.close();

    const reopened = await openSqliteStore(path);
    const second = runtimeKit(reopened, { model: createSimModel({ script }), idPrefix: "second" });
    expect(await second.runtime.start()).toEqual([]);
    const inA = await reopened.recentMessages(id, 20, "conv-a");
    expect(inA.at(-1)).toMatchObject({
      message_type: "assistant_message",
      content: "saved after remember tea",
      conversation_id: "conv-a",
    });
    expect(inA.every((m) => m.conversation_id === "conv-a")).toBe(true);
    expect((await reopened.loadBlocks(id)).find((b) => b.label === "human")?.value).toContain(
      "tea",
    );
    // The default conversation goes on where it was.
    const next = await second.runtime.send(id, { content: "back home" });
    expect(next.messages.at(-1)).toMatchObject({
      content: "saw in the default conversation|back home",
    });
    await second.runtime.shutdown();
  });
});
