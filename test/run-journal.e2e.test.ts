import { afterEach, describe, expect, it } from "vitest";
import { startTestServer } from "./support/server-kit.js";

/** `GET /v1/runs/{run_id}/journal` over real HTTP on SQLite with the `sim/demo` model. */
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TOKENS = new Map([
  ["token-a", "project-a"],
  ["token-b", "project-b"],
]);

async function getJson(path: string, token: string) {
  const response = await fetch(`${server?.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields it checks
  return { status: response.status, json: (await response.json()) as any };
}

describe("GET /v1/runs/{run_id}/journal", () => {
  it("shows each model step's offer and response, and tool results, to the run's project only", async () => {
    server = await startTestServer({ tokens: TOKENS });
    const client = server.client("token-a");
    const agent = await client.agents.create({ agent_type: "letta_v1_agent", name: "j" });
    const response = await client.agents.messages.create(agent.id, {
      messages: [{ role: "user", content: "remember I like tea" }],
    });
    const runId = String(response.messages.find((m) => "run_id" in m && m.run_id)?.run_id);

    const { status, json } = await getJson(`/v1/runs/${runId}/journal`, "token-a");
    expect(status).toBe(200);
    expect(json).toMatchObject({ run_id: runId, agent_id: agent.id });
    const kinds = json.entries.map((e: { kind: string }) => e.kind);
    expect(kinds[0]).toBe("begin");
    expect(kinds.at(-1)).toBe("finish");
    const models = json.entries.filter(
      (e: { kind: string; input?: { type: string } }) => e.input?.type === "model",
    );
    expect(models.length).toBe(2);
    expect(models[0].input.offered).toContain("memory_insert");
    expect(models[0].input.tool_choice).toMatch(/^(auto|required)$/);
    expect(models[0].input.response.toolCalls[0].name).toBe("memory_insert");
    expect(models[1].input.response.text).not.toBe("");
    // Each model step's id is the step record's id.
    const steps = await client.runs.steps.list(runId, { order: "asc" });
    const stepIds: string[] = [];
    for await (const step of steps) stepIds.push(step.id);
    expect(models.map((m: { input: { step_id: string } }) => m.input.step_id)).toEqual(stepIds);
    const tool = json.entries.find((e: { input?: { type: string } }) => e.input?.type === "tool");
    expect(tool.input.result).toMatchObject({ status: "success", executed: true });

    expect((await getJson(`/v1/runs/${runId}/journal`, "token-b")).status).toBe(404);
    expect((await getJson("/v1/runs/run-nope/journal", "token-a")).status).toBe(404);
  });
});
