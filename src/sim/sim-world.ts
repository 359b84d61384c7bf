import { createHash } from "node:crypto";
import { ChainRunner } from "../chains/chain-runner.js";
import type { HoldfastConfig } from "../config/config-file.js";
import { sequentialIds } from "../core/ids.js";
import { ManualClock } from "../core/manual-clock.js";
import { forkRandom, type Random, seededRandom } from "../core/random.js";
import { withRetries } from "../llm/retry.js";
import { createSimModel } from "../llm/sim/sim-model.js";
import { EmbeddedEngine } from "../runtime/embedded-engine.js";
import { createInMemoryStore } from "../storage/memory/in-memory-store.js";
import type { Store } from "../storage/store.js";
import type { StepCommit } from "../storage/turn-store.js";
import { builtinToolImplementations } from "../tools/registry.js";
import type { Sandbox } from "../tools/sandbox/sandbox.js";
import {
  failure,
  implementTool,
  safeToRerun,
  success,
  type ToolImplementation,
} from "../tools/tool.js";
import { FaultInjector, type FaultProfile, faultPlan } from "./fault-plan.js";
import { faultyStore } from "./faulty-store.js";
import { simConfig, simLookup } from "./sim-config.js";
import { simScript } from "./sim-script.js";
import { wakeUpInvariants } from "./wake-up-invariants.js";

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
  /** Every tool that really ran: agent, tool name, the call's idempotency key, and whether it may run again. */
  readonly executed: { agentId: string; tool: string; key: string; rerunnable: boolean }[] = [];
  runtime!: EmbeddedEngine;
  /** The disk as the current process generation sees it (with faults). */
  store!: Store;
  /** This generation's chain runner, once the workload runs chains (see `runChains`). */
  chains: ChainRunner | null = null;
  generation = 0;
  #chainsOn = false;
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
    const faulty = faultyStore(this.disk, this.faults, {
      committed: (step) => this.#checkForward(step),
      crash: () => this.crash("crash after write"),
    });
    const { kill } = faulty;
    // The new process touches the disk only once the disk is checked as the last one left it.
    const { store, open } = gated(faulty.store);
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
    this.violations.push(...(await this.#leftWaiting(generation)));
    open();
    const started = await this.drive(this.runtime.start());
    // A server whose start fails (its store could not list what to resume) exits, and its
    // supervisor starts it again; agents it could not resume wait until they are next used.
    if (started.status === "rejected") {
      this.crash("start failed");
      return this.boot();
    }
    const unresumed = started.value.map((failure) => failure.agentId);
    if (unresumed.length > 0) this.log(`boot ${generation}: not resumed ${unresumed.join(" ")}`);
    // A generation that died while it started (another boot began meanwhile) starts nothing:
    // the fields below are its successor's now.
    if (this.generation !== generation) return;
    if (this.#chainsOn && !(await this.#startChains())) {
      this.crash("chain resume failed");
      return this.boot();
    }
  }

  /**
   * From the next boot on, every generation runs chains: a runner over its engine and store
   * that carries on unfinished runs once the engine has started. Off until asked, so that a
   * world without chains makes the same store calls (and draws the same faults) as before.
   */
  enableChains(): void {
    this.#chainsOn = true;
  }

  /** Builds this generation's chain runner and resumes; false if resuming failed (as a server's start would). */
  async #startChains(): Promise<boolean> {
    const generation = this.generation;
    const runner = new ChainRunner(
      {
        store: this.store,
        engine: this.runtime,
        config: this.config,
        ids: this.ids,
        clock: this.clock,
      },
      (runId, error, retryMs) =>
        this.log(`chain ${runId} of ${generation} drives again in ${retryMs}ms: ${codeOf(error)}`),
    );
    this.chains = runner;
    const resumed = await this.drive(runner.resume());
    if (this.generation !== generation) return true;
    if (resumed.status === "rejected") return false;
    for (const failed of resumed.value)
      this.log(`chain ${failed.runId} not resumed: ${failed.error}`);
    return true;
  }

  /**
   * What the last process left on disk (it is dead, and the new one waits at its gate, so
   * nothing changes meanwhile): every waiting session must have its wake-up before start-up
   * gets a chance to repair anything.
   */
  async #leftWaiting(generation: number): Promise<string[]> {
    const agents = await this.disk.listAgents("default", { limit: 1_000_000, order: "asc" });
    const ids = agents.map((agent) => agent.id);
    const missing = await wakeUpInvariants(this.disk, ids);
    return missing.map((problem) => `before boot ${generation}: ${problem}`);
  }

  /** The process dies: nothing of this generation touches the disk again. */
  crash(why: string): void {
    // A dead process drives nothing again: its chain runner stops too.
    this.chains?.shutdown();
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
    // Odd seeds make sim_lookup an external effect that must not repeat after a crash, so the
    // simulation checks both ways a restart treats a call that was in flight.
    const idempotent = this.options.seed % 2 === 0;
    const lookup = implementTool(
      simLookup,
      { idempotent, timeoutMs: 1000 },
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
          const key = ctx.idempotencyKey;
          this.executed.push({
            agentId: ctx.agentId,
            tool: name,
            key,
            rerunnable: safeToRerun(tool),
          });
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

const codeOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error
    ? String(error.code)
    : error instanceof Error
      ? error.message
      : String(error);

function deathOf(): { promise: Promise<never>; reject: (error: Error) => void } {
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<never>((_, fail) => {
    reject = fail;
  });
  promise.catch(() => undefined);
  return { promise, reject };
}

/** A store whose calls wait until `open()`; once open, calls go straight through. */
function gated(store: Store): { store: Store; open: () => void } {
  let opened = false;
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = () => {
      opened = true;
      resolve();
    };
  });
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        opened ? value.apply(target, args) : gate.then(() => value.apply(target, args));
    },
  });
  return { store: wrapped, open };
}
