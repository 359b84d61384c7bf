import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../core/errors.js";
import { agentRecord, run, session, userMessage } from "../contract/fixtures.js";
import { GroupCommit } from "./group-commit.js";
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

  it("shares one commit among steps queued by separate callbacks of one loop turn (issue #16)", async () => {
    const calls: string[] = [];
    const record = (name: string) => () => void calls.push(name);
    const group = new GroupCommit({
      begin: record("begin"),
      commit: record("commit"),
      rollback: record("rollback"),
      savepoint: record("savepoint"),
      release: record("release"),
      rollbackToSavepoint: record("rollbackToSavepoint"),
    });
    // Like HTTP requests handled in one poll of the event loop: each in its own callback.
    // (Immediates queued together run in one check phase; 0 ms timers may not, on a busy machine.)
    const fromCallback = () =>
      new Promise<void>((resolve, reject) =>
        setImmediate(() => group.run(() => {}).then(resolve, reject)),
      );
    await Promise.all([fromCallback(), fromCallback(), fromCallback()]);
    expect(calls.filter((call) => call === "commit")).toHaveLength(1);
    expect(calls.filter((call) => call === "savepoint")).toHaveLength(3);
  });
});
