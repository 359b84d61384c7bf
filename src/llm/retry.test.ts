import { describe, expect, it } from "vitest";
import type { Clock } from "../core/clock.js";
import type { Random } from "../core/random.js";
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from "./model.js";
import { ModelError } from "./model-error.js";
import { type RetryOptions, withRetries } from "./retry.js";

/** A clock whose sleep returns at once and moves `now` forward by the time slept. */
function fakeClock(): Clock & { sleeps: number[] } {
  let nowMs = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => nowMs,
    sleep: async (ms) => {
      sleeps.push(ms);
      nowMs += ms;
    },
  };
}

const half: Random = { next: () => 0.5 };

const OK: ModelResponse = {
  text: "ok",
  reasoning: "",
  toolCalls: [],
  usage: { inputTokens: 1, outputTokens: 1 },
  finishReason: "stop",
};

const REQUEST: ModelRequest = { system: "", messages: [], tools: [] };

/** An adapter that plays its outcomes in order: an error is thrown, a response returned. */
function scripted(
  outcomes: (ModelError | ModelResponse | Error)[],
  stream?: (onDelta: (delta: ModelDelta) => void) => void,
): ModelAdapter & { calls: number } {
  const adapter = {
    handle: "openai/gpt-4o",
    contextWindow: 128_000,
    calls: 0,
    async generate(_request: ModelRequest, onDelta?: (delta: ModelDelta) => void) {
      const outcome = outcomes[adapter.calls++];
      if (onDelta && stream) stream(onDelta);
      if (!outcome) throw new Error("script ran out");
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
  return adapter;
}

function options(
  overrides: Partial<RetryOptions> = {},
): RetryOptions & { clock: ReturnType<typeof fakeClock> } {
  return {
    maxAttempts: 4,
    baseDelayMs: 100,
    maxDelayMs: 10_000,
    deadlineMs: 60_000,
    clock: fakeClock(),
    random: half,
    ...overrides,
  } as RetryOptions & { clock: ReturnType<typeof fakeClock> };
}

describe("withRetries", () => {
  it("retries a rate limit and returns the response of the attempt that succeeds", async () => {
    const adapter = scripted([new ModelError("rate_limit", "429"), OK]);
    const opts = options();
    expect(await withRetries(adapter, opts).generate(REQUEST)).toBe(OK);
    expect(adapter.calls).toBe(2);
    expect(opts.clock.sleeps).toHaveLength(1);
  });

  it("waits at least as long as the provider's retry-after asked", async () => {
    const adapter = scripted([new ModelError("rate_limit", "429", 5_000), OK]);
    const opts = options();
    await withRetries(adapter, opts).generate(REQUEST);
    expect(opts.clock.sleeps).toEqual([5_000]);
  });

  it("backs off exponentially with jitter, capped at maxDelayMs", async () => {
    const server = () => new ModelError("server", "500");
    const adapter = scripted([server(), server(), server(), server(), OK]);
    const opts = options({ maxAttempts: 5, maxDelayMs: 300 });
    await withRetries(adapter, opts).generate(REQUEST);
    // Equal jitter at random 0.5 waits three quarters of the backoff: 100, 200, 300 (cap), 300.
    expect(opts.clock.sleeps).toEqual([75, 150, 225, 225]);
  });

  it("spreads waits by the injected randomness", async () => {
    const waitsWith = async (value: number) => {
      const opts = options({ random: { next: () => value } });
      await withRetries(scripted([new ModelError("server", "500"), OK]), opts).generate(REQUEST);
      return opts.clock.sleeps[0];
    };
    expect(await waitsWith(0)).toBe(50);
    expect(await waitsWith(0.999)).toBe(100);
  });

  it("gives up with the last error rather than wait past the deadline", async () => {
    const first = new ModelError("rate_limit", "first", 600);
    const second = new ModelError("rate_limit", "second", 600);
    const adapter = scripted([first, second, OK]);
    const opts = options({ deadlineMs: 1_000 });
    await expect(withRetries(adapter, opts).generate(REQUEST)).rejects.toBe(second);
    expect(adapter.calls).toBe(2);
    expect(opts.clock.sleeps).toEqual([600]);
  });

  it("stops after maxAttempts and throws the last error", async () => {
    const errors = [1, 2, 3].map((n) => new ModelError("overloaded", `busy ${n}`));
    const adapter = scripted(errors);
    const opts = options({ maxAttempts: 3 });
    await expect(withRetries(adapter, opts).generate(REQUEST)).rejects.toBe(errors[2]);
    expect(adapter.calls).toBe(3);
    expect(opts.clock.sleeps).toHaveLength(2);
  });

  it("never retries a terminal error such as a 401", async () => {
    const auth = new ModelError("auth", "401");
    const adapter = scripted([auth, OK]);
    const opts = options();
    await expect(withRetries(adapter, opts).generate(REQUEST)).rejects.toBe(auth);
    expect(adapter.calls).toBe(1);
    expect(opts.clock.sleeps).toEqual([]);
  });

  it("never retries an error that is not a ModelError", async () => {
    const bug = new TypeError("undefined is not a function");
    const adapter = scripted([bug, OK]);
    await expect(withRetries(adapter, options()).generate(REQUEST)).rejects.toBe(bug);
    expect(adapter.calls).toBe(1);
  });

  it("does not retry an attempt that already streamed deltas", async () => {
    const failure = new ModelError("server", "stream broke");
    const adapter = scripted([failure, OK], (onDelta) => onDelta({ type: "text", text: "Hal" }));
    const deltas: ModelDelta[] = [];
    const retried = withRetries(adapter, options());
    await expect(retried.generate(REQUEST, (d) => deltas.push(d))).rejects.toBe(failure);
    expect(adapter.calls).toBe(1);
    expect(deltas).toEqual([{ type: "text", text: "Hal" }]);
  });

  it("does not retry once the caller has aborted", async () => {
    const controller = new AbortController();
    const timeout = new ModelError("timeout", "slow");
    const adapter = scripted([timeout, OK]);
    controller.abort();
    const request = { ...REQUEST, signal: controller.signal };
    await expect(withRetries(adapter, options()).generate(request)).rejects.toBe(timeout);
    expect(adapter.calls).toBe(1);
  });

  it("keeps the handle and context window of the adapter it wraps", () => {
    const retried = withRetries(scripted([]), options());
    expect(retried.handle).toBe("openai/gpt-4o");
    expect(retried.contextWindow).toBe(128_000);
  });
});
