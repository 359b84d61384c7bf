import { forkRandom, type Random } from "../core/random.js";

/** What can go wrong, on purpose, in a simulation. */
export const FAULT_KINDS = [
  "storage_read",
  "storage_write",
  "crash_after_write",
  "model_timeout",
  "model_failure",
  "model_rate_limit",
  "tool_failure",
  "tool_timeout",
  "network_delay",
  "clock_jump",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One fault: how likely per chance, on which operations, from when, how many times at most. */
export interface FaultSpec {
  kind: FaultKind;
  probability: number;
  /** Only these operations (store method names, tool names…); all when absent. */
  operations?: readonly string[];
  /** Not before this much simulated time has passed. */
  afterMs?: number;
  maxTriggers?: number;
}

export type FaultProfile = "none" | "mixed" | "heavy";

/** The fault plans behind `--faults`. */
export function faultPlan(profile: FaultProfile): FaultSpec[] {
  if (profile === "none") return [];
  const scale = profile === "heavy" ? 3 : 1;
  return [
    { kind: "storage_read", probability: 0.004 * scale },
    { kind: "storage_write", probability: 0.006 * scale },
    { kind: "crash_after_write", probability: 0.004 * scale, maxTriggers: 3 * scale },
    { kind: "model_timeout", probability: 0.03 * scale },
    { kind: "model_failure", probability: 0.02 * scale },
    { kind: "model_rate_limit", probability: 0.03 * scale },
    { kind: "tool_failure", probability: 0.05 * scale },
    { kind: "tool_timeout", probability: 0.03 * scale },
    { kind: "network_delay", probability: 0.1 * scale },
    { kind: "clock_jump", probability: 0.02 * scale },
  ];
}

/**
 * Decides, from its own seeded stream, whether a fault fires at a given chance, and counts
 * what fired. The same seed and the same sequence of chances give the same faults.
 */
export class FaultInjector {
  readonly #random: Random;
  readonly #fired = new Map<FaultKind, number>();
  #enabled = true;

  constructor(
    random: Random,
    private readonly plan: readonly FaultSpec[],
    private readonly nowMs: () => number,
    private readonly startMs: number,
  ) {
    this.#random = forkRandom(random, "faults");
  }

  /** Whether `kind` fires now on `operation`. */
  fires(kind: FaultKind, operation = ""): boolean {
    if (!this.#enabled) return false;
    const spec = this.plan.find((s) => s.kind === kind);
    if (!spec) return false;
    if (spec.operations && !spec.operations.includes(operation)) return false;
    if (spec.afterMs !== undefined && this.nowMs() - this.startMs < spec.afterMs) return false;
    const count = this.#fired.get(kind) ?? 0;
    if (spec.maxTriggers !== undefined && count >= spec.maxTriggers) return false;
    if (this.#random.next() >= spec.probability) return false;
    this.#fired.set(kind, count + 1);
    return true;
  }

  /** Stops all faults (the final recovery runs without them). */
  disable(): void {
    this.#enabled = false;
  }

  /** Starts them again (a later phase of the workload). */
  enable(): void {
    this.#enabled = true;
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.#fired);
  }
}
