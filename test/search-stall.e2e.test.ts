import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSimModel } from "../src/llm/sim/sim-model.js";
import { configWith } from "./support/fake-agents.js";
import { startTestServer } from "./support/server-kit.js";

let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
let root: string | undefined;
afterEach(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  server = undefined;
  root = undefined;
});

/**
 * An agent's workspace (`<type's root>/<agent id>`) of files of `aaaa…a!` lines, on each of
 * which `^(a+)+$` backtracks exponentially, and one line it matches.
 */
function fillWorkspace(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const lines = `${"a".repeat(40)}!\n`.repeat(24_000); // Just under the 1 MiB searched per file.
  for (let i = 0; i < 8; i++) writeFileSync(join(dir, `evil-${i}.txt`), lines);
  writeFileSync(join(dir, "fine.txt"), `${"a".repeat(40)}\n`);
}

/** A model that searches with the pattern once, then answers. */
const searchOnce = (pattern: string) =>
  createSimModel({
    script: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "searched" }
        : { toolCalls: [{ name: "search_files", args: { pattern } }] },
  });

type Chunk = { message_type?: string; tool_return?: string; status?: string };

// Issue #16, point 4: `^(a+)+$` on a 28-character line blocked every request for 19 s.
describe("a catastrophic search pattern", () => {
  it("leaves the server answering: health answers while the agent's search still runs", async () => {
    root = mkdtempSync(join(tmpdir(), "holdfast-stall-"));
    server = await startTestServer({
      model: searchOnce("^(a+)+$"),
      config: configWith({
        searcher: { extends: "verifier", isolation: { workspace_root: root } },
      }),
    });
    const client = server.client();
    // Holdfast's own types are not in the client's AgentType union; the server accepts them.
    const body = { agent_type: "searcher" } as unknown as Parameters<
      typeof client.agents.create
    >[0];
    const agent = await client.agents.create(body);
    fillWorkspace(join(root, agent.id));
    const response = await fetch(`${server.url}/v1/agents/${agent.id}/messages/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "search" }] }),
    });
    const events: string[] = [];
    let health: Promise<void> | undefined;
    let toolReturn: Chunk | undefined;
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(bytes, { stream: true });
      const frames = buffered.split("\n\n");
      buffered = frames.pop() ?? "";
      for (const frame of frames) {
        const data = frame.split("\n").find((line) => line.startsWith("data: "));
        if (!data || data === "data: [DONE]") continue;
        const chunk = JSON.parse(data.slice(6)) as Chunk;
        if (chunk.message_type === "tool_call_message" && health === undefined) {
          // The search starts now; the server must answer while it runs.
          health = fetch(`${server.url}/v1/health/`).then(async (answer) => {
            events.push(`health ${answer.status}`);
            await answer.body?.cancel();
          });
        }
        if (chunk.message_type === "tool_return_message") {
          events.push("tool returned");
          toolReturn = chunk;
        }
      }
    }
    await health;
    expect(events).toEqual(["health 200", "tool returned"]);
    expect(toolReturn).toMatchObject({ status: "success" });
    expect(toolReturn?.tool_return).toBe(`fine.txt:1: ${"a".repeat(40)}`);
  }, 60_000);
});
