import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../core/errors.js";
import { agentRecord, run, session, userMessage } from "../contract/fixtures.js";
import { openSqliteStore } from "./sqlite-store.js";

const step = (agentId: string, messageId: string) => ({
  agentId,
  state: session("running"),
  messages: [userMessage(messageId, `hello from ${agentId}`)],
  memory: { blocks: [], passages: [] },
});

describe("group commit", () => {
  it("commits concurrent steps together and rolls back only the one that fails", async () => {
    const store = await openSqliteStore(":memory:");
    await store.createAgent({ agent: agentRecord("agent-a"), blocks: [] });
    await store.createAgent({ agent: agentRecord("agent-b"), blocks: [] });
    // Issued in the same tick, these three land in one batch.
    const results = await Promise.allSettled([
      store.commit({ ...step("agent-a", "message-a"), run: run("run-a", "agent-a", "key-a") }),
      store.commit(step("agent-missing", "message-x")),
      store.commit(step("agent-b", "message-b")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError);
    expect((await store.recentMessages("agent-a", 10)).map((m) => m.id)).toEqual(["message-a"]);
    expect((await store.recentMessages("agent-b", 10)).map((m) => m.id)).toEqual(["message-b"]);
    expect(await store.findRunByKey("agent-a", "key-a")).not.toBeNull();
    await store.close();
  });

  it("writes what is queued before the store closes", async () => {
    const store = await openSqliteStore(":memory:");
    await store.createAgent({ agent: agentRecord("agent-a"), blocks: [] });
    const pending = store.commit(step("agent-a", "message-1"));
    await store.close();
    await expect(pending).resolves.toBeUndefined();
  });
});
