import type { z } from "zod";
import type { Clock } from "../core/clock.js";
import type { AgentMemory } from "../memory/agent-memory.js";
import type { ToolDeclaration, ToolParameters } from "./tool-declaration.js";

/** Where a tool may act: the agent's workspace, confined to its root. */
export interface Workspace {
  /** Absolute path every file and shell tool is confined to; `null` when none is set up. */
  readonly root: string | null;
  readonly readOnly: boolean;
  /** Whether commands may use the network (the sandbox gives them none otherwise). */
  readonly network: boolean;
}

/** What a tool receives besides its arguments. Everything non-deterministic comes through here. */
export interface ToolContext {
  readonly agentId: string;
  readonly workspace: Workspace;
  readonly memory: AgentMemory;
  readonly clock: Clock;
  /** Aborted when the tool's timeout passes or the run is cancelled. */
  readonly signal: AbortSignal;
  /** Stable across retries of the same call, so an external effect can be made once. */
  readonly idempotencyKey: string;
  /** The run the call belongs to: conversation search leaves its messages out. */
  readonly runId?: string | null;
}

/** What a tool asks of the loop besides returning output. */
export interface ToolEffects {
  /** The session sleeps until this time (pause_heartbeats). */
  readonly pauseUntilMs?: number;
  /** The user-visible reply (send_message). */
  readonly reply?: string;
}

/** The outcome the model sees. An `error` is a normal result the model can act on. */
export interface ToolResult {
  readonly status: "success" | "error";
  readonly output: string;
  readonly effects?: ToolEffects;
}

/** A tool that can run: its declaration, how to run it, and how it may be retried. */
export interface ToolImplementation<P extends ToolParameters = ToolParameters> {
  readonly declaration: ToolDeclaration<P>;
  /** Running it twice with the same arguments has the effect of running it once. */
  readonly idempotent: boolean;
  /**
   * Its only effects are memory changes staged until its result commits: a crash before that
   * commit undoes them, so it may run again after a crash even if it is not idempotent.
   */
  readonly stagedEffects: boolean;
  readonly timeoutMs: number;
  run(args: z.output<P>, context: ToolContext): Promise<ToolResult>;
}

export function implementTool<P extends ToolParameters>(
  declaration: ToolDeclaration<P>,
  options: { idempotent: boolean; stagedEffects?: boolean; timeoutMs?: number },
  run: (args: z.output<P>, context: ToolContext) => Promise<ToolResult>,
): ToolImplementation<P> {
  return {
    declaration,
    idempotent: options.idempotent,
    stagedEffects: options.stagedEffects ?? false,
    timeoutMs: options.timeoutMs ?? 30_000,
    run,
  };
}

/**
 * Whether a call of `tool` that was in flight at a crash may simply run again on resume. Any
 * other call is committed as started before it runs, and is not repeated after a crash.
 */
export const safeToRerun = (tool: ToolImplementation): boolean =>
  tool.idempotent || tool.stagedEffects;

export const success = (output: string, effects?: ToolEffects): ToolResult =>
  effects ? { status: "success", output, effects } : { status: "success", output };
export const failure = (output: string): ToolResult => ({ status: "error", output });
