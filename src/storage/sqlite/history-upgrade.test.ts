import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { memoryAt } from "../../memory/memory-at.js";
import { committedAt } from "../../records/memory-history.js";
import { agentRecord, block, passage, session, userMessage } from "../contract/fixtures.js";
import { registerOwnedTerms } from "./full-text.js";
import { MIGRATIONS, migrate } from "./migrations.js";
import { openSqliteStore } from "./sqlite-store.js";

const directory = await mkdtemp(join(tmpdir(), "holdfast-history-upgrade-"));
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("the memory history migration", () => {
  it("gives an older agent a baseline: forks from then on, refused before", async () => {
    // Written before memory history: an agent with a block, two messages and a passage.
    const path = join(directory, "old.db");
    {
      const db = new DatabaseSync(path);
      registerOwnedTerms(db);
      // Migrations 1-9: the schema just before memory history (10, replay and fork).
      migrate(db, MIGRATIONS.slice(0, 9));
      const agent = agentRecord("agent-old");
      db.prepare("INSERT INTO agents (id, project_id, parent_id, body) VALUES (?, ?, NULL, ?)").run(
        agent.id,
        agent.project_id,
        JSON.stringify(agent),
      );
      const human = block("human", "likes tea");
      db.prepare("INSERT INTO blocks (agent_id, label, body) VALUES (?, ?, ?)").run(
        agent.id,
        "human",
        JSON.stringify(human),
      );
      const insert = db.prepare(
        "INSERT INTO messages (id, agent_id, message_type, created_at, body) VALUES (?, ?, ?, ?, ?)",
      );
      for (const id of ["m-1", "m-2"]) {
        const body = userMessage(id, id);
        insert.run(id, agent.id, body.message_type, body.date, JSON.stringify(body));
      }
      db.prepare(
        "INSERT INTO passages (id, agent_id, text, tags, created_at_ms) VALUES (?, ?, ?, '[]', 1)",
      ).run("passage-old", agent.id, "gulls");
      db.close();
    }
    const store = await openSqliteStore(path);
    // Migration 11 made the agent's block a block it owns, attached to it.
    expect(await store.loadBlocks("agent-old")).toEqual([block("human", "likes tea")]);
    expect(await store.blocks.agentsOf("project-1", "block-human")).toEqual(["agent-old"]);
    const history = await store.memoryHistory("agent-old");
    expect(history).toEqual([
      { position: 5, change: { kind: "baseline" } },
      { position: 5, change: { kind: "block", block: block("human", "likes tea") } },
    ]);
    const passages = [{ ...passage("passage-old", "gulls"), created_at_ms: 1 }];
    expect(memoryAt(history, passages, committedAt(2))).toMatchObject({ ok: false });
    await store.commit({
      agentId: "agent-old",
      state: session("idle"),
      messages: [userMessage("m-3", "three")],
      memory: { blocks: [], passages: [] },
    });
    const at3 = memoryAt(await store.memoryHistory("agent-old"), passages, committedAt(3));
    expect(at3).toEqual({ ok: true, blocks: [block("human", "likes tea")], passages });
    await store.close();
  });
});
