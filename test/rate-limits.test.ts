import { afterEach, describe, expect, it } from "vitest";
import { sendUserMessage } from "../src/agent/run-turn.js";
import { systemClock } from "../src/core/clock.js";
import { seededRandom } from "../src/core/random.js";
import { createModel } from "../src/llm/create-model.js";
import { RateLimiter } from "../src/llm/rate-limiter.js";
import { createInMemoryStore } from "../src/storage/memory/in-memory-store.js";
import {
  type FakeProviderServer,
  type ScriptedCompletion,
  startFakeProvider,
} from "./support/fake-provider-server.js";
import { loopKit } from "./support/loop-kit.js";
import { openAiChatWire } from "./support/wire/openai-chat.js";

const HANDLE = "openai/gpt-4.1-mini";
const AGENTS = 200;
const TURNS = 3;
const PROVIDER_CONCURRENCY = 5;

/** A reply through send_message, after a stall long enough that unlimited calls pile up at the provider. */
const ANSWER: ScriptedCompletion = {
  type: "completion",
  stallMs: 25,
  toolCalls: [
    {
      id: "call_1",
      name: "send_message",
      arguments: JSON.stringify({ message: "Noted.", request_heartbeat: false }),
    },
  ],
};

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * `AGENTS` memgpt agents on one store share one model (as the server shares one per handle)
 * behind `limiter`, against a fake OpenAI that answers 429 past `PROVIDER_CONCURRENCY` calls
 * at once. Each agent sends `TURNS` messages one after another. Returns, per agent, the
 * grants made to other agents while its calls waited, and its runs.
 */
async function fleet(limiter: RateLimiter) {
  const provider = await startFakeProvider(openAiChatWire, () => ANSWER, {
    maxInFlight: PROVIDER_CONCURRENCY,
  });
  servers.push(provider);
  const waitedGrants = new Map<string, number>();
  const acquire = limiter.acquire.bind(limiter);
  limiter.acquire = async (key, tokens, signal) => {
    const grant = await acquire(key, tokens, signal);
    waitedGrants.set(key, (waitedGrants.get(key) ?? 0) + grant.waitedGrants);
    return grant;
  };
  const model = createModel(HANDLE, {
    env: { OPENAI_API_KEY: "sk-fake", OPENAI_BASE_URL: provider.baseUrl },
    random: seededRandom(7),
    retry: { maxAttempts: 20, baseDelayMs: 5, maxDelayMs: 50 },
    limiter,
  });
  const store = createInMemoryStore();
  const agentIds = Array.from({ length: AGENTS }, (_, i) => `agent-${i}`);
  const runs = await Promise.all(
    agentIds.map(async (agentId) => {
      const kit = await loopKit({ type: "memgpt_agent", model, store, agentId });
      const stops: string[] = [];
      const queueWaitMs: number[] = [];
      for (let turn = 0; turn < TURNS; turn++) {
        const result = await sendUserMessage(
          kit.agent,
          await kit.session(),
          { content: `message ${turn}` },
          kit.deps,
        );
        stops.push(result.stopReason);
        const run = await store.getRun(result.state.run_id ?? "");
        queueWaitMs.push(run?.usage?.queue_wait_ms ?? 0);
      }
      const queuedEvents = kit.events.filter((event) => event.type === "model_queued");
      return { agentId, stops, queueWaitMs, queuedEvents };
    }),
  );
  return { provider, runs, waitedGrants };
}

/** The largest value over the mean, and the mean. */
function spread(values: readonly number[]) {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return { mean, ratio: Math.max(...values) / mean };
}

describe("fair rate limits: 200 agents, a provider that allows 5 calls at once", () => {
  it("never exceeds the limit, finishes every agent, and spreads the waiting evenly", async () => {
    const limiter = new RateLimiter({ concurrent: PROVIDER_CONCURRENCY }, systemClock);
    const { provider, runs, waitedGrants } = await fleet(limiter);

    expect(provider.peakInFlight).toBeLessThanOrEqual(PROVIDER_CONCURRENCY);
    expect(provider.rejected).toBe(0);
    expect(provider.requests).toHaveLength(AGENTS * TURNS);
    for (const run of runs) expect(run.stops).toEqual(Array(TURNS).fill("end_turn"));
    // Waiting in logical terms: the calls granted to other agents while an agent's calls
    // queued. Round-robin keeps every agent's total within 2x of the mean.
    const logical = spread(runs.map((run) => waitedGrants.get(run.agentId) ?? 0));
    expect(logical.mean).toBeGreaterThan(AGENTS / 2);
    expect(logical.ratio).toBeLessThanOrEqual(2);
    // The wait is on each run record, in its usage (its spread in milliseconds is the bench's
    // business: tests assert no wall-clock figures).
    const totalMs = runs.map((run) => run.queueWaitMs.reduce((sum, ms) => sum + ms, 0));
    expect(totalMs.filter((ms) => ms > 0).length).toBeGreaterThan(AGENTS / 2);
    // Each step that waited says so on the agent's event stream, with the same wait.
    for (const run of runs) {
      const waited = run.queuedEvents.reduce(
        (sum, event) => sum + (event.type === "model_queued" ? event.wait_ms : 0),
        0,
      );
      expect(waited).toBe(run.queueWaitMs.reduce((sum, ms) => sum + ms, 0));
    }
    expect(runs[0]?.queuedEvents[0]).toMatchObject({ model: HANDLE, step_id: expect.any(String) });
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("learns the provider's limit from its 429s when none is configured, and every agent still finishes", async () => {
    const limiter = new RateLimiter({}, systemClock);
    const { provider, runs } = await fleet(limiter);

    expect(provider.rejected).toBeGreaterThan(0);
    for (const run of runs) expect(run.stops).toEqual(Array(TURNS).fill("end_turn"));
    expect(provider.requests).toHaveLength(AGENTS * TURNS);
    // The first burst (all agents at once) meets up to AGENTS 429s; after it the limit
    // settles around the provider's, probing above it now and then (AIMD), so later 429s
    // stay fewer than one per call (without adapting, most calls would meet one or more).
    expect(provider.rejected).toBeLessThan(AGENTS * TURNS);
    expect(limiter.snapshot().limit).toBeLessThan(2 * PROVIDER_CONCURRENCY);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
  });
});
