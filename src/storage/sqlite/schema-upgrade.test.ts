import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentMessage } from "../../records/messages.js";
import { agentRecord, asc, ids, run, session, step, userMessage } from "../contract/fixtures.js";
import type { Store } from "../store.js";
import { OWNED_TERMS_FUNCTION } from "./full-text.js";
import { MIGRATIONS, migrate } from "./migrations.js";
import { openSqliteStore } from "./sqlite-store.js";

const directory = await mkdtemp(join(tmpdir(), "holdfast-upgrade-"));
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function message(id: string, runId: string): AgentMessage {
  const base = { id, date: "2025-03-01T12:00:00.000Z", run_id: runId, step_id: null, otid: null };
  return { ...base, message_type: "assistant_message", content: `${id} of ${runId}` };
}

/**
 * A database as Holdfast wrote it at schema version 1: records without the fields added since
 * (`parent_id`, a run's `usage` and `verification`, a message's `seq_id`), and agent-a waiting
 * mid-turn in run-1 with two messages of it between other runs' messages.
 */
async function versionOneDatabase(): Promise<string> {
  const path = join(directory, `v1-${Math.random().toString(36).slice(2)}.db`);
  const db = new DatabaseSync(path);
  migrate(db, MIGRATIONS.slice(0, 1));
  const { parent_id: _parent, ...agent } = agentRecord("agent-a");
  db.prepare("INSERT INTO agents (id, project_id, body) VALUES (?, ?, ?)").run(
    agent.id,
    agent.project_id,
    JSON.stringify(agent),
  );
  for (const id of ["run-0", "run-1"]) {
    const { usage: _usage, verification: _verification, ...old } = run(id, "agent-a");
    db.prepare("INSERT INTO runs (id, agent_id, body) VALUES (?, ?, ?)").run(
      id,
      "agent-a",
      JSON.stringify(old),
    );
  }
  const insert = db.prepare(
    "INSERT INTO messages (id, agent_id, message_type, created_at, body) VALUES (?, ?, ?, ?, ?)",
  );
  for (const [id, runId] of [
    ["m-0", "run-0"],
    ["m-1", "run-1"],
    ["m-x", "run-x"],
    ["m-2", "run-1"],
  ] as const) {
    const body = message(id, runId);
    insert.run(id, "agent-a", body.message_type, body.date, JSON.stringify(body));
  }
  const state = JSON.stringify({ ...session("running"), version: 1, run_id: "run-1" });
  db.prepare("INSERT INTO sessions (agent_id, version, phase, body) VALUES (?, 1, ?, ?)").run(
    "agent-a",
    "running",
    state,
  );
  db.close();
  return path;
}

describe("SQLite store opening a version 1 database", () => {
  let store: Store;

  it("migrates to version 2 keeping its messages findable by run", async () => {
    store = await openSqliteStore(await versionOneDatabase());
    expect(ids(await store.listRunMessages("run-1"))).toEqual(["m-1", "m-2"]);
    expect(ids(await store.listRunMessages("run-0"))).toEqual(["m-0"]);
    expect(ids(await store.listRuns({ projectId: "project-1" }, asc()))).toEqual([
      "run-0",
      "run-1",
    ]);
    expect(await store.getRun("run-1")).toEqual(run("run-1", "agent-a"));
    expect(await store.getAgent("agent-a")).toEqual(agentRecord("agent-a"));
    expect(await store.listChildren("agent-a")).toEqual([]);
    expect(await store.interruptedSessions()).toEqual(["agent-a"]);
    await store.close();
  });

  it("keeps a run's earlier messages when the run carries on after the upgrade", async () => {
    store = await openSqliteStore(await versionOneDatabase());
    const ended = { ...run("run-1", "agent-a"), status: "completed" as const };
    await store.commit(step("agent-a", { messages: [message("m-3", "run-1")], run: ended }));
    await store.putRun(ended);
    expect(ids(await store.listRunMessages("run-1"))).toEqual(["m-1", "m-2", "m-3"]);
    await store.close();
  });
});

/**
 * A database as Holdfast wrote it at schema version 4: rows indexed for full-text search with
 * their agent as an `owner` token, for two agents holding the same words.
 */
async function versionFourDatabase(): Promise<string> {
  const path = join(directory, `v4-${Math.random().toString(36).slice(2)}.db`);
  const db = new DatabaseSync(path);
  migrate(db, MIGRATIONS.slice(0, 4));
  for (const [seq, id] of [
    [1, "agent-a"],
    [2, "agent-b"],
  ] as const) {
    const agent = agentRecord(id);
    db.prepare("INSERT INTO agents (seq, id, project_id, body) VALUES (?, ?, ?, ?)").run(
      seq,
      id,
      agent.project_id,
      JSON.stringify(agent),
    );
    const text = `the lighthouse keeper of ${id}`;
    const passage = db
      .prepare(
        "INSERT INTO passages (id, agent_id, text, tags, created_at_ms) VALUES (?, ?, ?, ?, ?)",
      )
      .run(`p-${id}`, id, text, '["coast"]', 2_000);
    db.prepare("INSERT INTO passages_fts (rowid, owner, text) VALUES (?, ?, ?)").run(
      passage.lastInsertRowid,
      `a${seq}`,
      text,
    );
    const body = userMessage(`m-${id}`, text);
    const message = db
      .prepare(`INSERT INTO messages (id, agent_id, message_type, created_at, search_role,
        search_text, body) VALUES (?, ?, ?, ?, 'user', ?, ?)`)
      .run(body.id, id, body.message_type, body.date, text, JSON.stringify(body));
    db.prepare("INSERT INTO messages_fts (rowid, owner, search_text) VALUES (?, ?, ?)").run(
      message.lastInsertRowid,
      `a${seq}`,
      text,
    );
  }
  db.close();
  return path;
}

describe("SQLite store opening a version 4 database", () => {
  it("reindexes passages and messages by agent, each search finding its agent's rows only", async () => {
    const store = await openSqliteStore(await versionFourDatabase());
    for (const id of ["agent-a", "agent-b"]) {
      expect(ids(await store.searchPassages(id, "lighthouse", { topK: 10 }))).toEqual([`p-${id}`]);
      expect(ids(await store.searchMessages(id, "keeper", { limit: 10 }))).toEqual([`m-${id}`]);
    }
    expect(await store.deletePassage("agent-a", "p-agent-a")).toBe(true);
    expect(await store.searchPassages("agent-a", "lighthouse", { topK: 10 })).toEqual([]);
    await store.insertPassages("agent-a", [
      { id: "p-new", text: "a new lighthouse", tags: [], created_at_ms: 3_000 },
    ]);
    expect(ids(await store.searchPassages("agent-a", "lighthouse", { topK: 10 }))).toEqual([
      "p-new",
    ]);
    await store.close();
  });
});

/**
 * A version 6 database where a send_message call was indexed by its JSON arguments and its
 * "sent" return was indexed too, as Holdfast wrote them before issue 13.
 */
async function versionSixDatabase(): Promise<string> {
  const path = join(directory, `v6-${Math.random().toString(36).slice(2)}.db`);
  const db = new DatabaseSync(path);
  migrate(db, MIGRATIONS.slice(0, 6));
  const agent = agentRecord("agent-a");
  const seq = db
    .prepare("INSERT INTO agents (id, project_id, body) VALUES (?, ?, ?)")
    .run(agent.id, agent.project_id, JSON.stringify(agent)).lastInsertRowid;
  const base = { date: "2025-03-01T12:00:00.000Z", run_id: "run-1", step_id: "s", otid: null };
  const args = '{"message":"the lighthouse is red","request_heartbeat":false}';
  const rows: [AgentMessage, string, string][] = [
    [
      {
        ...base,
        id: "m-call",
        message_type: "tool_call_message",
        tool_call: { name: "send_message", arguments: args, tool_call_id: "c1" },
      },
      "assistant",
      args,
    ],
    [
      {
        ...base,
        id: "m-sent",
        message_type: "tool_return_message",
        name: "send_message",
        tool_call_id: "c1",
        tool_return: "sent lighthouse",
        status: "success",
      },
      "tool",
      "sent lighthouse",
    ],
  ];
  for (const [body, role, text] of rows) {
    const row = db
      .prepare(`INSERT INTO messages (id, agent_id, message_type, created_at, search_role,
        search_text, body) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(body.id, agent.id, body.message_type, body.date, role, text, JSON.stringify(body));
    db.prepare(
      `INSERT INTO messages_fts (rowid, terms) VALUES (?, ${OWNED_TERMS_FUNCTION}(?, ?))`,
    ).run(row.lastInsertRowid, seq, text);
  }
  db.close();
  return path;
}

describe("SQLite store opening a version 6 database (issue 13)", () => {
  it("reindexes a send_message reply by what it said, and no longer finds its 'sent' return", async () => {
    const store = await openSqliteStore(await versionSixDatabase());
    const hits = await store.searchMessages("agent-a", "lighthouse", { limit: 10 });
    expect(hits.map((hit) => [hit.id, hit.role, hit.text])).toEqual([
      ["m-call", "assistant", "the lighthouse is red"],
    ]);
    expect(await store.searchMessages("agent-a", "request_heartbeat", { limit: 10 })).toEqual([]);
    await store.close();
  });
});
