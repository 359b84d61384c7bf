import { createHash } from "node:crypto";
import { z } from "zod";
import { builtinConfig, type HoldfastConfig } from "../config/config-file.js";
import { sequentialIds } from "../core/ids.js";
import { ManualClock } from "../core/manual-clock.js";
import { forkRandom, type Random, seededRandom } from "../core/random.js";
import { withRetries } from "../llm/retry.js";
import { createSimModel } from "../llm/sim/sim-model.js";
import { EmbeddedEngine } from "../runtime/embedded-engine.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { Store } from "../storage/store.js";
import type { StepCommit } from "../storage/turn-store.js";
import { BUILTIN_PACKS, builtinToolCatalogue, createToolCatalogue } from "../tools/catalogue.js";
import { builtinToolImplementations } from "../tools/registry.js";
import type { Sandbox } from "../tools/sandbox/sandbox.js";
import { failure, implementTool, success, type ToolImplementation } from "../tools/tool.js";
import { defineTool } from "../tools/tool-declaration.js";
import { AgentTypeRegistry } from "../types/registry.js";
import { FaultInjector, type FaultProfile, faultPlan } from "./fault-plan.js";
import { faultyStore } from "./faulty-store.js";
import { simScript } from "./sim-script.js";

/**
 * Agents here have no workspace, so the shell refuses every command before it would start one;
 * no sandbox is needed, and the shell stays offered as it is on a server.
 */
const NO_WORKSPACE_SHELL: Sandbox = { mode: "none" };

export interface WorldOptions {
  seed: number;
  faults: FaultProfile;
  /** For mutation checks only: replaces the disk the runtime sees with a faulty variant. */
  mutateStore?: (store: Store) => Store;
}

/** A tool outside Holdfast: it may fail or hang, as the fault plan says. */
const simLookup = defineTool({
  name: "sim_lookup",
  description: "Looks a key up in an external service.",
  parameters: z.object({ key: z.string() }),
  risk: "read",
});

/**
 * One simulated world: a disk (in-memory store) that survives crashes, a clock that moves
 * only when the simulation advances it, seeded randomness, a fault injector, and the real
 * runtime, dispatcher and loop, started again after every crash.
 */
export class SimWorld {
  readonly random: Random;
  readonly clock = new ManualClock(Date.UTC(2026, 0, 1));
  readonly disk: Store;
  readonly faults: FaultInjector;
  readonly ids = sequentialIds();
  readonly config: HoldfastConfig;
  readonly trace: string[] = [];
  readonly violations: string[] = [];
  /** Every tool that really ran: agent and tool name. */
  readonly executed: { agentId: string; tool: string }[] = [];
  runtime!: EmbeddedEngine;
  /** The disk as the current process generation sees it (with faults). */
  store!: Store;
  generation = 0;
  #kill: () => void = () => {};
  /** Rejects when the current process generation dies. */
  #death: { promise: Promise<never>; reject: (error: Error) => void } = deathOf();
  #lastStep = new Map<string, { runId: string | null; steps: number }>();

  constructor(readonly options: WorldOptions) {
    this.random = seededRandom(options.seed);
    this.faults = new FaultInjector(
      this.random,
      faultPlan(options.faults),
      () => this.clock.now(),
      this.clock.now(),
    );
    const disk = createInMemoryStore();
    this.disk = options.mutateStore ? options.mutateStore(disk) : disk;
    this.config = simConfig();
  }

  /** Starts a process generation: a fresh runtime over the disk, resuming what was interrupted. */
  async boot(): Promise<void> {
    this.generation += 1;
    // Each generation counts its own activations: a dead one's late callbacks touch only its own.
    const live = new Map<string, number>();
    const generation = this.generation;
    const { store, kill } = faultyStore(this.disk, this.faults, {
      committed: (step) => this.#checkForward(step),
      crash: () => this.crash("crash after write"),
    });
    this.#kill = kill;
    this.#death = deathOf();
    this.store = store;
    const model = withRetries(
      createSimModel({
        script: simScript(forkRandom(this.random, `model-${generation}`)),
        fault: () => this.#modelFault(),
        latency: { clock: this.clock, ms: 5 },
      }),
      {
        maxAttempts: 3,
        baseDelayMs: 200,
        maxDelayMs: 2000,
        deadlineMs: 10_000,
        clock: this.clock,
        random: forkRandom(this.random, "retry"),
      },
    );
    this.runtime = new EmbeddedEngine({
      store,
      config: this.config,
      ids: this.ids,
      tools: this.#tools(),
      modelFor: () => model,
      defaultModel: "sim/world",
      workspaceFor: (_record, isolation) => ({
        root: null,
        readOnly: isolation.read_only,
        network: isolation.network,
      }),
      clock: this.clock,
      idleMs: 30_000,
      observe: {
        activated: (id) => {
          const count = (live.get(id) ?? 0) + 1;
          live.set(id, count);
          if (count > 1)
            this.violations.push(`agent ${id} had two activations in generation ${generation}`);
        },
        deactivated: (id) => live.set(id, (live.get(id) ?? 1) - 1),
      },
    });
    this.log(`boot ${generation}`);
    const started = await this.drive(this.runtime.start());
    // A server whose start fails (its store could not list what to resume) exits, and its
    // supervisor starts it again; agents it could not resume wait until they are next used.
    if (started.status === "rejected") {
      this.crash("start failed");
      return this.boot();
    }
    const unresumed = started.value.map((failure) => failure.agentId);
    if (unresumed.length > 0) this.log(`boot ${generation}: not resumed ${unresumed.join(" ")}`);
  }

  /** The process dies: nothing of this generation touches the disk again. */
  crash(why: string): void {
    this.#kill();
    this.#death.reject(new Error(`the process died (${why})`));
    this.log(`crash ${this.generation} (${why})`);
  }

  /**
   * `work` as a client of this process generation sees it: if the process dies first, the
   * client's connection is gone and the call fails (a run waiting for sub-agents would
   * otherwise wait for events a dead process never sends).
   */
  alive<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#death.promise]);
  }

  log(line: string): void {
    this.trace.push(`${this.clock.now()} ${line}`);
  }

  traceHash(): string {
    return createHash("sha256").update(this.trace.join("\n")).digest("hex").slice(0, 16);
  }

  /**
   * Runs the simulation until `work` settles: lets every ready callback run, and when all
   * that remains is waiting on the clock, moves the clock to the next wake-up.
   */
  async drive<T>(work: Promise<T>): Promise<PromiseSettledResult<T>> {
    let settled: PromiseSettledResult<T> | null = null;
    void work.then(
      (value) => {
        settled = { status: "fulfilled", value };
      },
      (reason: unknown) => {
        settled = { status: "rejected", reason };
      },
    );
    for (let spins = 0; settled === null; spins += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled !== null) break;
      const next = this.clock.nextWakeAtMs();
      if (next !== null && spins % 3 === 2)
        this.clock.advance(Math.max(1, next - this.clock.now()));
      if (spins > 200_000) throw new Error("simulation stuck: work never settles");
    }
    return settled;
  }

  #modelFault() {
    if (this.faults.fires("network_delay")) this.clock.advance(50);
    if (this.faults.fires("clock_jump")) this.clock.advance(60 * 60_000);
    if (this.faults.fires("model_timeout")) return "timeout" as const;
    if (this.faults.fires("model_failure")) return "server" as const;
    if (this.faults.fires("model_rate_limit")) return "rate_limit" as const;
    return undefined;
  }

  /** The server's tools plus sim_lookup, each recording that it ran. */
  #tools(): Map<string, ToolImplementation> {
    const lookup = implementTool(
      simLookup,
      { idempotent: true, timeoutMs: 1000 },
      async ({ key }, ctx) => {
        if (this.faults.fires("tool_failure", "sim_lookup"))
          throw new Error("simulated tool failure");
        if (this.faults.fires("tool_timeout", "sim_lookup"))
          await ctx.clock.sleep(5000, ctx.signal);
        return key === "" ? failure("empty key") : success(`value of ${key}`);
      },
    );
    const tools = builtinToolImplementations(NO_WORKSPACE_SHELL);
    tools.set(lookup.declaration.name, lookup);
    for (const [name, tool] of tools) {
      tools.set(name, {
        ...tool,
        run: (args, ctx) => {
          this.executed.push({ agentId: ctx.agentId, tool: name });
          return tool.run(args, ctx);
        },
      });
    }
    return tools;
  }

  /** Checkpoints only move forward: within a run, the step count never goes down. */
  #checkForward(step: StepCommit): void {
    const last = this.#lastStep.get(step.agentId);
    const now = { runId: step.state.run_id, steps: step.state.usage.step_count };
    if (last && last.runId === now.runId && now.steps < last.steps) {
      this.violations.push(
        `checkpoint of ${step.agentId} went back from step ${last.steps} to ${now.steps}`,
      );
    }
    this.#lastStep.set(step.agentId, now);
  }
}

/**
 * The built-in types plus `sim_agent` (letta_v1 with the external sim_lookup tool),
 * `sim_careful` (the same, asking before every side effect: approvals in sub-agents) and
 * `sim_boss` (an orchestrator that spawns any of them, itself included, two levels deep).
 */
function simConfig(): HoldfastConfig {
  const base = builtinConfig();
  const letta = base.registry.get("letta_v1_agent");
  const orchestrator = base.registry.get("orchestrator");
  if (!letta || !orchestrator) throw new Error("letta_v1_agent or orchestrator missing");
  const simType = {
    ...letta,
    name: "sim_agent",
    tools: { ...letta.tools, include: ["sim_lookup"] },
  };
  const careful = {
    ...simType,
    name: "sim_careful",
    tools: { ...simType.tools, approval: "per_action" as const },
    policy_profile: "strict" as const,
  };
  const boss = {
    ...orchestrator,
    name: "sim_boss",
    limits: { ...orchestrator.limits, max_spawn_depth: 2 },
  };
  const catalogue = createToolCatalogue(
    [...builtinToolCatalogue().tools.values(), simLookup],
    BUILTIN_PACKS,
  );
  return {
    ...base,
    catalogue,
    registry: new AgentTypeRegistry([...base.registry.list(), simType, careful, boss]),
  };
}

function deathOf(): { promise: Promise<never>; reject: (error: Error) => void } {
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<never>((_, fail) => {
    reject = fail;
  });
  promise.catch(() => undefined);
  return { promise, reject };
}
