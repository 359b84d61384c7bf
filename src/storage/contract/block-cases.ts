import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import type { CoreBlock } from "../../records/core-block.js";
import { asc, block, type ContractContext, desc, ids, step } from "./fixtures.js";

const standalone = (id: string, label = "team", value = "shared notes"): CoreBlock => ({
  ...block(label, value),
  id,
  tags: ["team"],
});

/** Blocks as entities (`block-store.ts`): standalone, shared, listed, deleted, per project. */
export function blockCases(t: ContractContext): void {
  describe("shared blocks", () => {
    it("creates a standalone block that only its project sees", async () => {
      await t.store.blocks.create("project-1", standalone("block-team"));
      expect(await t.store.blocks.get("project-1", "block-team")).toEqual(standalone("block-team"));
      expect(await t.store.blocks.get("project-2", "block-team")).toBeNull();
      expect(await t.store.blocks.agentsOf("project-1", "block-team")).toEqual([]);
      await expect(
        t.store.blocks.create("project-2", standalone("block-team")),
      ).rejects.toBeInstanceOf(ConflictError);
      await expect(
        t.store.blocks.create("project-1", { ...standalone("block-bad"), limit: 0 }),
      ).rejects.toBeInstanceOf(ValidationError);
    });

    it("attaches one block to several agents, who all read every write to it", async () => {
      const a = await t.createAgent();
      const b = await t.createAgent();
      await t.store.blocks.create("project-1", standalone("block-team"));
      await t.store.blocks.attach(a, "block-team");
      await t.store.blocks.attach(b, "block-team");
      expect(await t.store.blocks.agentsOf("project-1", "block-team")).toEqual([a, b]);
      // A turn of agent a edits it (base: what a read), the API edits it through agent b.
      const edited = { ...standalone("block-team"), value: "shared notes\nfrom a" };
      const bases = { "block-team": "shared notes" };
      await t.store.commit(step(a, { memory: { blocks: [edited], passages: [], bases } }));
      const last = (await t.store.loadBlocks(b)).at(-1);
      expect(last).toEqual(edited);
      await t.store.putBlock(b, { ...edited, value: "rewritten by b" });
      expect((await t.store.loadBlocks(a)).at(-1)?.value).toBe("rewritten by b");
      const history = await t.store.memoryHistory(a);
      expect(history.at(-1)?.change).toEqual({
        kind: "block",
        block: { ...edited, value: "rewritten by b" },
      });
    });

    it("rebases a turn's edit on a change made meanwhile, and refuses edits that overlap", async () => {
      const a = await t.createAgent();
      const b = await t.createAgent();
      await t.store.blocks.create("project-1", standalone("block-team", "team", "one"));
      await t.store.blocks.attach(a, "block-team");
      await t.store.blocks.attach(b, "block-team");
      const read = standalone("block-team", "team", "one");
      const appended = (value: string) => ({ ...read, value });
      // Both turns read "one"; b commits first, a's append lands after b's.
      await t.store.commit(
        step(b, {
          memory: { blocks: [appended("one\nb")], passages: [], bases: { [read.id]: "one" } },
        }),
      );
      await t.store.commit(
        step(a, {
          memory: { blocks: [appended("one\na")], passages: [], bases: { [read.id]: "one" } },
        }),
      );
      expect((await t.store.blocks.get("project-1", read.id))?.value).toBe("one\nb\na");
      // A rewrite of the text an edit changes cannot be placed: nothing of the step is written.
      await t.store.putBlock(b, appended("1\n2\n3"));
      const stale = { [read.id]: "one\nb\na" };
      const before = await t.store.countMessages(a);
      const message = { id: t.fresh("message"), date: "2025-03-01T12:00:00.000Z" };
      const said = { ...message, run_id: null, step_id: null, otid: null };
      await expect(
        t.store.commit(
          step(a, {
            messages: [{ ...said, message_type: "user_message", content: "x" }],
            memory: { blocks: [appended("one\nX\na")], passages: [], bases: stale },
          }),
        ),
      ).rejects.toBeInstanceOf(ConflictError);
      expect((await t.store.blocks.get("project-1", read.id))?.value).toBe("1\n2\n3");
      expect(await t.store.countMessages(a)).toBe(before);
    });

    it("refuses a second block with a label the agent has, and blocks of another project", async () => {
      const a = await t.createAgent();
      await t.store.blocks.create("project-1", standalone("block-persona-2", "persona"));
      await expect(t.store.blocks.attach(a, "block-persona-2")).rejects.toBeInstanceOf(
        ConflictError,
      );
      await t.store.blocks.create("project-2", standalone("block-elsewhere"));
      await expect(t.store.blocks.attach(a, "block-elsewhere")).rejects.toBeInstanceOf(
        NotFoundError,
      );
      await expect(t.store.blocks.attach("agent-none", "block-persona-2")).rejects.toBeInstanceOf(
        NotFoundError,
      );
      expect((await t.store.loadBlocks(a)).map((b) => b.label)).toEqual(["persona", "human"]);
    });

    it("renames a shared block for every agent, unless one of them has the label", async () => {
      const a = await t.createAgent();
      await t.store.blocks.create("project-1", standalone("block-team"));
      await t.store.blocks.attach(a, "block-team");
      await t.store.blocks.update("project-1", { ...standalone("block-team"), label: "crew" });
      expect((await t.store.loadBlocks(a)).map((b) => b.label)).toEqual([
        "persona",
        "human",
        "crew",
      ]);
      await expect(
        t.store.blocks.update("project-1", { ...standalone("block-team"), label: "human" }),
      ).rejects.toBeInstanceOf(ConflictError);
      await expect(
        t.store.blocks.update("project-2", standalone("block-team")),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it("detaches a block everywhere when it is deleted, and keeps it when one agent goes", async () => {
      const a = await t.createAgent();
      const b = await t.createAgent();
      await t.store.blocks.create("project-1", standalone("block-team"));
      await t.store.blocks.attach(a, "block-team");
      await t.store.blocks.attach(b, "block-team");
      // An agent's own blocks go with it; a block it shares stays for the others.
      const [persona] = await t.store.loadBlocks(a);
      expect(await t.store.detachBlock(b, "team")).toBe(true);
      expect(await t.store.deleteAgent(a)).toBe(true);
      expect(await t.store.blocks.get("project-1", persona?.id ?? "")).toBeNull();
      expect(await t.store.blocks.get("project-1", "block-team")).not.toBeNull();
      await t.store.blocks.attach(b, "block-team");
      expect(await t.store.blocks.delete("project-2", "block-team")).toBe(false);
      expect(await t.store.blocks.delete("project-1", "block-team")).toBe(true);
      expect((await t.store.loadBlocks(b)).map((x) => x.label)).toEqual(["persona", "human"]);
      expect(await t.store.blocks.delete("project-1", "block-team")).toBe(false);
    });

    it("lists a project's blocks by label, text, tags and how many agents share them", async () => {
      const a = await t.createAgent();
      await t.store.blocks.create("project-1", standalone("block-team"));
      await t.store.blocks.create("project-1", {
        ...standalone("block-plan", "plan", "Ship the BETA"),
        tags: ["team", "plan"],
      });
      await t.store.blocks.create("project-2", standalone("block-other"));
      await t.store.blocks.attach(a, "block-team");
      const list = (filter: object, page = asc()) =>
        t.store.blocks.list({ projectId: "project-1", ...filter }, page).then(ids);
      expect(await list({})).toEqual(["block-persona", "block-human", "block-team", "block-plan"]);
      expect(await list({}, desc(2))).toEqual(["block-plan", "block-team"]);
      expect(await list({}, asc(10, { after: "block-human" }))).toEqual([
        "block-team",
        "block-plan",
      ]);
      expect(await list({}, asc(10, { after: "block-other" }))).toEqual([]);
      expect(await list({ label: "plan" })).toEqual(["block-plan"]);
      expect(await list({ valueSearch: "beta" })).toEqual(["block-plan"]);
      expect(await list({ labelSearch: "ERS" })).toEqual(["block-persona"]);
      expect(await list({ descriptionSearch: "the hum" })).toEqual(["block-human"]);
      expect(await list({ tags: ["plan", "team"] })).toEqual(["block-team", "block-plan"]);
      expect(await list({ tags: ["plan", "team"], matchAllTags: true })).toEqual(["block-plan"]);
      expect(await list({ agentsExactly: [0] })).toEqual(["block-plan"]);
      expect(await list({ agentsMoreThan: 0, labelSearch: "t" })).toEqual(["block-team"]);
      expect(await list({ agentsFewerThan: 1 })).toEqual(["block-plan"]);
    });
  });
}
