import { existsSync } from "node:fs";
import { join } from "node:path";
import Letta from "@letta-ai/letta-client";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, startServer, stopServer } from "./cli.js";
import { usePostgres } from "./support/postgres.js";
import { tempDir } from "./support/temp-dirs.js";

/** No provider key and no tokens: the server runs the `sim/demo` model without auth. */
const QUIET_ENV: NodeJS.ProcessEnv = {
  OPENAI_API_KEY: "",
  ANTHROPIC_API_KEY: "",
  GOOGLE_GENERATIVE_AI_API_KEY: "",
  OLLAMA_BASE_URL: "",
  OPENAI_COMPATIBLE_BASE_URL: "",
  HOLDFAST_TOKENS: "",
  HOLDFAST_TOKEN: "",
  HOLDFAST_CONFIG: "",
  HOLDFAST_PG_URL: "",
};

type Server = Awaited<ReturnType<typeof startServer>>;

/** `holdfast serve --pg-url`: the embedded engine over a real PostgreSQL (issue #11). */
describe("holdfast serve on PostgreSQL", () => {
  const database = usePostgres();
  const cwd = tempDir("holdfast-pg-serve-");
  const dataDir = join(cwd, "data");
  const started: Server[] = [];
  const start = async (url: string, extra: string[] = []) => {
    const args = ["--port", "0", "--data-dir", dataDir, "--pg-url", url, ...extra];
    const server = await startServer(args, { cwd, env: QUIET_ENV });
    started.push(server);
    return server;
  };
  const client = (server: Server) => new Letta({ baseURL: server.url, maxRetries: 0 });
  afterAll(async () => {
    for (const server of started) await stopServer(server.process);
  });

  it("keeps an agent's conversation in PostgreSQL across a kill -9 and a restart", async () => {
    const url = await database.freshDatabase();
    const first = await start(url);
    expect(first.output()).toMatch(
      /store: {2}postgres 127\.0\.0\.1:\d+\/test_db_\d+ schema holdfast/,
    );
    const agent = await client(first).agents.create({ agent_type: "memgpt_agent" });
    const reply = await client(first).agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "My name is Ada and I keep a lighthouse" }],
    });
    expect(reply.messages.length).toBeGreaterThan(0);
    const before = [];
    for await (const m of client(first).agents.messages.list(agent.id, { order: "asc" })) {
      before.push(m);
    }
    expect(before[0]).toMatchObject({ message_type: "user_message" });

    await new Promise((resolve) => {
      first.process.once("exit", resolve);
      first.process.kill("SIGKILL");
    });
    const second = await start(url);
    const after = [];
    for await (const m of client(second).agents.messages.list(agent.id, { order: "asc" })) {
      after.push(m);
    }
    expect(after).toEqual(before);

    // The data is in PostgreSQL, and nothing went to SQLite in the data directory.
    expect(existsSync(join(dataDir, "holdfast.db"))).toBe(false);
    const direct = new pg.Client({ connectionString: url });
    await direct.connect();
    const { rows } = await direct.query("SELECT id FROM holdfast.messages WHERE agent_id = $1", [
      agent.id,
    ]);
    await direct.end();
    const stored = rows.map((row) => row.id);
    expect(stored).toEqual(expect.arrayContaining(before.map((m) => m.id)));

    // The restarted server carries on the conversation after what was kept.
    await client(second).agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "Do you remember me?" }],
    });
    const page = await client(second).agents.messages.list(agent.id, { order: "asc", limit: 100 });
    expect(page.getPaginatedItems().slice(0, before.length)).toEqual(before);
    expect(page.getPaginatedItems().length).toBeGreaterThan(before.length);
    await stopServer(second.process);
  });

  it("refuses a second server on the same database, naming the holder", async () => {
    const url = await database.freshDatabase();
    const holder = await start(url);
    const refused = runCli(
      ["serve", "--port", "0", "--data-dir", join(cwd, "other"), "--pg-url", url],
      {
        cwd,
        env: QUIET_ENV,
        timeoutMs: 30_000,
      },
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("PostgreSQL schema 'holdfast' is in use by");
    expect(refused.stderr).toContain(`holdfast serve pid ${holder.process.pid} on `);
    expect(refused.stdout).not.toContain("listening on");
    await stopServer(holder.process);
  });

  it("rejects a URL that is not PostgreSQL's before starting, without echoing it", () => {
    const result = runCli(["serve", "--port", "0", "--pg-url", "mysql://root:hunter2@db/x"], {
      cwd,
      env: QUIET_ENV,
      timeoutMs: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("--pg-url: not a PostgreSQL URL");
    expect(result.stderr).not.toContain("hunter2");
  });
});
