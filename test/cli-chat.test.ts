import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSse, type StreamChunk } from "../src/cli/http-client.js";
import { type CliResult, HOLDFAST_BIN, startServer, stopServer } from "./cli.js";

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
  NO_COLOR: "",
};

/** Runs `holdfast ARGS` against a server URL, with `input` piped to its stdin. */
function holdfast(args: readonly string[], url: string, input = ""): CliResult {
  const result = spawnSync(process.execPath, [HOLDFAST_BIN, ...args], {
    env: { ...process.env, ...QUIET_ENV, HOLDFAST_URL: url },
    input,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A port nothing listens on: bound once by the OS, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("holdfast agents and chat against a running server", () => {
  const dir = mkdtempSync(join(tmpdir(), "holdfast-cli-chat-"));
  const server = startServer(["--port", "0", "--data-dir", join(dir, "data")], {
    cwd: dir,
    env: QUIET_ENV,
  });
  afterAll(async () => {
    await stopServer((await server).process);
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates, lists, shows, chats with and deletes an agent", async () => {
    const { url } = await server;
    const created = holdfast(
      ["agents", "create", "--type", "memgpt_agent", "--name", "ada-bot"],
      url,
    );
    expect(created.stderr).toBe("");
    expect(created.status).toBe(0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^agent-\S+$/);

    const list = holdfast(["agents", "list"], url);
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+NAME\s+TYPE\s+MODEL/);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+ada-bot\\s+memgpt_agent\\s+sim/demo`));
    const json = JSON.parse(holdfast(["agents", "list", "--json"], url).stdout) as { id: string }[];
    expect(json.map((agent) => agent.id)).toContain(id);

    const show = holdfast(["agents", "show", id], url);
    expect(show.status).toBe(0);
    expect(show.stdout).toContain("type    memgpt_agent");
    expect(show.stdout).toContain("model   sim/demo");
    expect(show.stdout).toMatch(/human\s+0\/5000 chars/);
    expect(show.stdout).toContain("core_memory_append");

    const chat = holdfast(["chat", "ada-bot"], url, "My name is Ada\nWhat is my name?\n/exit\n");
    expect(chat.stderr).toBe("");
    expect(chat.status).toBe(0);
    expect(chat.stdout).not.toContain("\x1b[");
    expect(chat.stdout).toContain("you> My name is Ada");
    expect(chat.stdout).toMatch(/→ core_memory_append\(label="human", content="My name is Ada"/);
    expect(chat.stdout).toContain("← block 'human' now holds");
    expect(chat.stdout).toMatch(/ada-bot: .*Ada/);
    const answer = chat.stdout.slice(chat.stdout.indexOf("you> What is my name?"));
    expect(answer).toMatch(/\nada-bot: From my memory of you: My name is Ada\n/);

    const deleted = holdfast(["agents", "delete", id], url);
    expect(deleted.status).toBe(0);
    expect(deleted.stdout).toContain(`deleted ${id}`);
    const gone = holdfast(["agents", "show", id], url);
    expect(gone.status).toBe(1);
    expect(gone.stderr).toContain("not found (404 NOT_FOUND)");
  });

  it("prints each field error of a rejected create and exits 1", async () => {
    const { url } = await server;
    const result = holdfast(["agents", "create", "--type", "nope", "--name", "x"], url);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^holdfast: .*\(422 VALIDATION_ERROR\)/);
    expect(result.stderr).toMatch(/\n {2}agent_type: unknown agent type 'nope'/);
  });

  it("says so when no server listens at the URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = holdfast(["chat", "ada-bot"], url, "hello\n");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`no Holdfast server at ${url}: start one with \`npm start\``);
  });
});

describe("the CLI's SSE reader", () => {
  const body = (text: string, size: number) => {
    const bytes = new TextEncoder().encode(text);
    return new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += size)
          controller.enqueue(bytes.slice(at, at + size));
        controller.close();
      },
    });
  };
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const chunks: StreamChunk[] = [];
    for await (const chunk of readSse(stream)) chunks.push(chunk);
    return chunks;
  };

  it("reassembles frames split across network chunks and skips comments and other events", async () => {
    const text =
      ": ping\n\n" +
      'data: {"id":"m1","message_type":"assistant_message","content":"Hé"}\n\n' +
      'event: progress\ndata: {"message_type":"ignored"}\n\n' +
      'data: {"message_type":"stop_reason","stop_reason":"end_turn"}\r\n\r\n' +
      "data: [DONE]\n\n" +
      'data: {"message_type":"after_done"}\n\n';
    for (const size of [1, 3, 7, 1000]) {
      const types = (await collect(body(text, size))).map((chunk) => chunk.message_type);
      expect(types).toEqual(["assistant_message", "stop_reason"]);
    }
    const [first] = await collect(body(text, 1));
    expect(first?.content).toBe("Hé");
  });

  it("throws with the message of an error event", async () => {
    const text =
      'data: {"message_type":"stop_reason","stop_reason":"error"}\n\n' +
      'event: error\ndata: {"message_type":"error_message","message":"model timed out"}\n\n' +
      "data: [DONE]\n\n";
    await expect(collect(body(text, 5))).rejects.toThrow("model timed out");
  });
});
