import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../core/errors.js";
import type { ScheduledMessageRecord } from "../../records/scheduled-message.js";
import type { ContractContext, StoreContractOptions } from "./fixtures.js";

/** A one-time scheduled message of `agentId`, due at `atMs`. */
export function scheduled(id: string, agentId: string, atMs: number): ScheduledMessageRecord {
  return {
    id,
    agent_id: agentId,
    messages: [{ role: "user", content: `wake up (${id})` }],
    max_steps: null,
    include_return_message_types: null,
    callback_url: null,
    schedule: { type: "one-time", scheduled_at: atMs },
    next_at_ms: atMs,
    created_at_ms: 1_000,
  };
}

/** Scheduled messages: stored per agent, read by due time, gone with their agent. */
export function scheduleCases(t: ContractContext, options: StoreContractOptions): void {
  describe("scheduled messages", () => {
    it("lists an agent's scheduled messages in creation order, paged by id", async () => {
      const a = await t.createAgent();
      const b = await t.createAgent();
      for (const [id, at] of [
        ["s-1", 5_000],
        ["s-2", 3_000],
        ["s-3", 4_000],
      ] as const)
        await t.store.schedules.put(scheduled(id, a, at));
      await t.store.schedules.put(scheduled("s-b", b, 1_000));
      const ids = (page: ScheduledMessageRecord[]) => page.map((s) => s.id);
      expect(ids(await t.store.schedules.list(a, { limit: 10 }))).toEqual(["s-1", "s-2", "s-3"]);
      expect(ids(await t.store.schedules.list(a, { after: "s-1", limit: 1 }))).toEqual(["s-2"]);
      expect(await t.store.schedules.list(a, { after: "s-b", limit: 10 })).toEqual([]);
      expect(await t.store.schedules.get("s-2")).toEqual(scheduled("s-2", a, 3_000));
    });

    it("gives the due ones soonest first, and the next one, across agents", async () => {
      const a = await t.createAgent();
      const b = await t.createAgent();
      await t.store.schedules.put(scheduled("s-1", a, 5_000));
      await t.store.schedules.put(scheduled("s-2", b, 3_000));
      await t.store.schedules.put(scheduled("s-3", a, 9_000));
      expect((await t.store.schedules.due(5_000)).map((s) => s.id)).toEqual(["s-2", "s-1"]);
      expect((await t.store.schedules.next())?.id).toBe("s-2");
      // Moving one on (a recurring message after it fired) replaces it in place.
      await t.store.schedules.put({ ...scheduled("s-2", b, 3_000), next_at_ms: 7_000 });
      expect((await t.store.schedules.due(6_000)).map((s) => s.id)).toEqual(["s-1"]);
      expect(await t.store.schedules.delete("s-1")).toBe(true);
      expect(await t.store.schedules.delete("s-1")).toBe(false);
      expect((await t.store.schedules.next())?.id).toBe("s-2");
    });

    it("refuses a scheduled message for an agent it lacks, and deletes them with the agent", async () => {
      await expect(t.store.schedules.put(scheduled("s-1", "agent-none", 1))).rejects.toThrow(
        NotFoundError,
      );
      const a = await t.createAgent();
      await t.store.schedules.put(scheduled("s-2", a, 2_000));
      await t.store.deleteAgent(a);
      expect(await t.store.schedules.get("s-2")).toBeNull();
      expect(await t.store.schedules.next()).toBeNull();
    });

    const reopen = options.reopen;
    if (reopen) {
      it("keeps scheduled messages across close and reopen", async () => {
        const a = await t.createAgent();
        await t.store.schedules.put(scheduled("s-1", a, 2_000));
        t.store = await reopen(t.store);
        expect(await t.store.schedules.due(2_000)).toEqual([scheduled("s-1", a, 2_000)]);
      });
    }
  });
}
