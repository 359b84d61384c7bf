// Each class from its own file: prom-client's index also loads its default metrics, cluster
// aggregation and summaries (with t-digest), none used here: tens of ms of a server's start-up.
import Counter from "prom-client/lib/counter.js";
import Gauge from "prom-client/lib/gauge.js";
import Histogram from "prom-client/lib/histogram.js";
import Registry from "prom-client/lib/registry.js";
import type { LoopObserver, ModelCallSeen, ToolCallSeen } from "../agent/observer.js";
import { providerOf } from "../records/step-record.js";

/** What the runtime reports on each scrape: live activations and queued operations. */
export interface RuntimeActivity {
  activeAgents(): number;
  mailboxDepth(): number;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const COMMIT_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * Holdfast's Prometheus metrics, in a registry of their own (never prom-client's global one, so
 * two servers in one process, or two tests, never share counts). It is a LoopObserver: the loop
 * tells it of turns, model calls, tool calls and commits.
 *
 * @example
 * const metrics = new HoldfastMetrics();
 * const text = await metrics.scrape(); // Prometheus text format
 */
export class HoldfastMetrics implements LoopObserver {
  readonly registry = new Registry();
  readonly #turns: Counter<"outcome">;
  readonly #turnSeconds: Histogram;
  readonly #steps: Counter<"status">;
  readonly #modelCalls: Counter<"provider" | "model">;
  readonly #modelErrors: Counter<"provider" | "kind">;
  readonly #modelSeconds: Histogram<"provider">;
  readonly #queueSeconds: Histogram<"provider">;
  readonly #tokens: Counter<"provider" | "direction">;
  readonly #toolCalls: Counter<"tool" | "outcome">;
  readonly #toolSeconds: Histogram<"tool">;
  readonly #commitSeconds: Histogram;
  readonly #started = new Map<string, number>();
  #activity: RuntimeActivity | null = null;

  constructor() {
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Counter<L>({ name, help, labelNames, registers });
    const histogram = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      buckets = SECONDS,
    ) => new Histogram<L>({ name, help, labelNames, buckets, registers });
    this.#turns = counter("holdfast_turns_total", "Turns that stopped, by outcome", ["outcome"]);
    this.#turnSeconds = histogram(
      "holdfast_turn_duration_seconds",
      "Turn time until it stopped",
      [],
    );
    this.#steps = counter("holdfast_steps_total", "Steps (model calls) by status", ["status"]);
    this.#modelCalls = counter("holdfast_model_calls_total", "Model calls", ["provider", "model"]);
    this.#modelErrors = counter(
      "holdfast_model_errors_total",
      "Failed model calls (fallbacks too)",
      ["provider", "kind"],
    );
    this.#modelSeconds = histogram("holdfast_model_call_duration_seconds", "Model call time", [
      "provider",
    ]);
    this.#queueSeconds = histogram(
      "holdfast_rate_limit_wait_seconds",
      "Time a model call queued behind rate limits",
      ["provider"],
    );
    this.#tokens = counter("holdfast_tokens_total", "Tokens by provider and direction", [
      "provider",
      "direction",
    ]);
    this.#toolCalls = counter("holdfast_tool_calls_total", "Tool calls run", ["tool", "outcome"]);
    this.#toolSeconds = histogram("holdfast_tool_call_duration_seconds", "Tool call time", [
      "tool",
    ]);
    this.#commitSeconds = histogram(
      "holdfast_checkpoint_commit_seconds",
      "Time a step's commit took",
      [],
      COMMIT_SECONDS,
    );
    const activity = () => this.#activity;
    new Gauge({
      name: "holdfast_active_agents",
      help: "Agents with a live activation",
      registers,
      collect() {
        this.set(activity()?.activeAgents() ?? 0);
      },
    });
    new Gauge({
      name: "holdfast_mailbox_depth",
      help: "Operations queued in agents' mailboxes",
      registers,
      collect() {
        this.set(activity()?.mailboxDepth() ?? 0);
      },
    });
  }

  /** The runtime whose activations and mailboxes the gauges read at each scrape. */
  watch(activity: RuntimeActivity): void {
    this.#activity = activity;
  }

  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  turnStarted(seen: { agentId: string; atMs: number }): void {
    this.#started.set(seen.agentId, seen.atMs);
  }

  turnEnded(seen: { agentId: string; atMs: number; outcome: string }): void {
    this.#turns.inc({ outcome: seen.outcome });
    const started = this.#started.get(seen.agentId);
    this.#started.delete(seen.agentId);
    if (started !== undefined) this.#turnSeconds.observe((seen.atMs - started) / 1000);
  }

  modelCalled(seen: ModelCallSeen): void {
    const provider = providerOf(seen.model);
    this.#steps.inc({ status: seen.error === null ? "success" : "failed" });
    for (const handle of seen.fallbacks) {
      this.#modelErrors.inc({ provider: providerOf(handle), kind: "fallback" });
    }
    this.#modelCalls.inc({ provider, model: seen.model });
    if (seen.error !== null) this.#modelErrors.inc({ provider, kind: seen.error.kind });
    this.#modelSeconds.observe({ provider }, (seen.endedAtMs - seen.startedAtMs) / 1000);
    this.#queueSeconds.observe({ provider }, seen.queueWaitMs / 1000);
    this.#tokens.inc({ provider, direction: "input" }, seen.inputTokens);
    this.#tokens.inc({ provider, direction: "output" }, seen.outputTokens);
    this.#tokens.inc({ provider, direction: "cached_input" }, seen.cachedInputTokens);
  }

  toolCalled(seen: ToolCallSeen): void {
    this.#toolCalls.inc({ tool: seen.tool, outcome: seen.outcome });
    this.#toolSeconds.observe({ tool: seen.tool }, (seen.endedAtMs - seen.startedAtMs) / 1000);
  }

  committed(seen: { durationMs: number }): void {
    this.#commitSeconds.observe(seen.durationMs / 1000);
  }
}
