import type * as Api from "@opentelemetry/api";
import type { LoopObserver, ModelCallSeen, ToolCallSeen } from "../agent/observer.js";
import type { StopReason } from "../records/messages.js";
import type { Usage } from "../records/session-state.js";
import { providerOf } from "../records/step-record.js";

/** Traces being exported, and how to flush and stop them. */
export interface Tracing {
  observer: LoopObserver;
  shutdown(): Promise<void>;
}

/**
 * Starts exporting OpenTelemetry spans over OTLP/HTTP (JSON) when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; otherwise returns null having loaded
 * nothing: the SDK is imported only here, on demand, so tracing that is off costs nothing.
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<Tracing | null> {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (!base && !traces) return null;
  const url = traces || `${base?.replace(/\/+$/, "")}/v1/traces`;
  const [api, sdk, otlp, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME?.trim() || "holdfast",
    }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new otlp.OTLPTraceExporter({ url }) })],
  });
  return {
    observer: new SpanObserver(api, provider.getTracer("holdfast")),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Spans with the OpenTelemetry GenAI semantic conventions: `invoke_agent` for a run (as long as
 * it runs here), a `step` under it per model call, and under each step its `chat {model}` call
 * and `execute_tool {tool}` calls. Times are the loop's, so spans are made after the fact.
 */
class SpanObserver implements LoopObserver {
  readonly #turns = new Map<string, { run: Api.Span; step: Api.Span | null }>();

  constructor(
    private readonly api: typeof Api,
    private readonly tracer: Api.Tracer,
  ) {}

  #child(parent: Api.Span | undefined, name: string, options: Api.SpanOptions): Api.Span {
    const ctx = parent
      ? this.api.trace.setSpan(this.api.ROOT_CONTEXT, parent)
      : this.api.ROOT_CONTEXT;
    return this.tracer.startSpan(name, options, ctx);
  }

  turnStarted(seen: { agentId: string; runId: string | null; atMs: number }): void {
    this.#end(seen.agentId, seen.atMs);
    const run = this.#child(undefined, "invoke_agent", {
      kind: this.api.SpanKind.INTERNAL,
      startTime: seen.atMs,
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.id": seen.agentId,
        ...(seen.runId !== null && {
          "gen_ai.conversation.id": seen.runId,
          "holdfast.run_id": seen.runId,
        }),
      },
    });
    this.#turns.set(seen.agentId, { run, step: null });
  }

  modelCalled(seen: ModelCallSeen): void {
    const turn = this.#turns.get(seen.agentId);
    turn?.step?.end(seen.startedAtMs);
    const step = this.#child(turn?.run, "step", {
      startTime: seen.startedAtMs,
      attributes: { "holdfast.step_id": seen.stepId, "gen_ai.agent.id": seen.agentId },
    });
    if (turn) turn.step = step;
    const model = seen.model.slice(seen.model.indexOf("/") + 1);
    const chat = this.#child(step, `chat ${model}`, {
      kind: this.api.SpanKind.CLIENT,
      startTime: seen.startedAtMs,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": providerOf(seen.model),
        "gen_ai.request.model": model,
        "gen_ai.response.model": model,
        "gen_ai.usage.input_tokens": seen.inputTokens,
        "gen_ai.usage.output_tokens": seen.outputTokens,
        "holdfast.queue_wait_ms": seen.queueWaitMs,
        ...(seen.finishReason !== null && {
          "gen_ai.response.finish_reasons": [seen.finishReason],
        }),
        ...(seen.error !== null && { "error.type": seen.error.kind }),
      },
    });
    if (seen.error !== null) {
      chat.setStatus({ code: this.api.SpanStatusCode.ERROR, message: seen.error.message });
    }
    chat.end(seen.endedAtMs);
    if (!turn) step.end(seen.endedAtMs);
  }

  toolCalled(seen: ToolCallSeen): void {
    const parent = this.#turns.get(seen.agentId);
    const span = this.#child(parent?.step ?? parent?.run, `execute_tool ${seen.tool}`, {
      startTime: seen.startedAtMs,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": seen.tool,
        "gen_ai.tool.call.id": seen.toolCallId,
        "gen_ai.tool.type": "function",
      },
    });
    if (seen.outcome === "error") span.setStatus({ code: this.api.SpanStatusCode.ERROR });
    span.end(seen.endedAtMs);
  }

  committed(): void {}

  turnEnded(seen: {
    agentId: string;
    atMs: number;
    outcome: StopReason | "awaiting_children" | "failed";
    usage: Usage;
  }): void {
    const turn = this.#turns.get(seen.agentId);
    turn?.run.setAttributes({
      "holdfast.stop_reason": seen.outcome,
      "gen_ai.usage.input_tokens": seen.usage.prompt_tokens,
      "gen_ai.usage.output_tokens": seen.usage.completion_tokens,
    });
    if (seen.outcome === "failed") turn?.run.setStatus({ code: this.api.SpanStatusCode.ERROR });
    this.#end(seen.agentId, seen.atMs);
  }

  #end(agentId: string, atMs: number): void {
    const turn = this.#turns.get(agentId);
    if (!turn) return;
    turn.step?.end(atMs);
    turn.run.end(atMs);
    this.#turns.delete(agentId);
  }
}
