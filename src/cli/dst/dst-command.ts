import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { type Command, Option } from "commander";
import type { FaultProfile } from "../../sim/fault-plan.js";
import type { SeedResult } from "../../sim/run-seed.js";

interface DstOptions {
  seeds?: string;
  seed?: string;
  faults: FaultProfile;
  trace?: boolean;
  workers?: string;
}

/** `1..1000` or `7` → the seeds. */
function parseSeeds(spec: string): number[] {
  const range = /^(\d+)\.\.(\d+)$/.exec(spec);
  if (range) {
    const [from, to] = [Number(range[1]), Number(range[2])];
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  }
  if (/^\d+$/.test(spec)) return [Number(spec)];
  throw new Error(`seeds look like 1..1000 or 42, not '${spec}'`);
}

export function registerDstCommand(program: Command): void {
  program
    .command("dst")
    .description("deterministic simulation: run seeds with injected faults and check invariants")
    .option("--seeds <range>", "seeds to run, e.g. 1..1000", "1..100")
    .option("--seed <n>", "one seed, e.g. to replay a failure")
    .addOption(
      new Option("--faults <profile>", "fault plan")
        .choices(["none", "mixed", "heavy"])
        .default("mixed"),
    )
    .option("--trace", "print the seed's trace (with --seed)")
    .option("--workers <n>", "worker threads (default: one per core)")
    .action(async (options: DstOptions) => {
      if (options.seed) return replay(Number(options.seed), options);
      const ok = await runMany(parseSeeds(options.seeds ?? "1..100"), options);
      process.exitCode = ok ? 0 : 1;
    });
}

async function replay(seed: number, options: DstOptions): Promise<void> {
  const { runSeed } = await import("../../sim/run-seed.js");
  const result = await runSeed({ seed, faults: options.faults, keepTrace: options.trace === true });
  if (options.trace) for (const line of result.trace ?? []) console.log(line);
  console.log(`seed ${seed}: ${result.ok ? "ok" : "FAILED"} (trace ${result.traceHash})`);
  for (const violation of result.violations) console.log(`  ${violation}`);
  process.exitCode = result.ok ? 0 : 1;
}

async function runMany(seeds: number[], options: DstOptions): Promise<boolean> {
  const started = Date.now();
  const workers = Math.max(
    1,
    Math.min(Number(options.workers ?? availableParallelism()), seeds.length),
  );
  const slices = Array.from({ length: workers }, (_, w) =>
    seeds.filter((_, i) => i % workers === w),
  );
  const results: SeedResult[] = [];
  let shown = -1;
  const progress = () => {
    const done = results.length;
    // On a terminal the bar redraws in place; in a log, a line every tenth of the way.
    const step = Math.floor((done / seeds.length) * 10);
    if (!process.stderr.isTTY && step === shown && done !== seeds.length) return;
    shown = step;
    const width = 30;
    const bar = "#".repeat(Math.round((done / seeds.length) * width)).padEnd(width, ".");
    const failing = results.filter((r) => !r.ok).length;
    const line = `[${bar}] ${done}/${seeds.length} seeds, ${failing} failing`;
    process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`);
  };
  await Promise.all(
    slices.map(
      (slice) =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(new URL("./dst-worker.js", import.meta.url), {
            workerData: { seeds: slice, faults: options.faults },
          });
          worker.on("message", (result: SeedResult) => {
            results.push(result);
            progress();
          });
          worker.once("error", reject);
          worker.once("exit", () => resolve());
        }),
    ),
  );
  if (process.stderr.isTTY) process.stderr.write("\n");
  summarize(results, options.faults, (Date.now() - started) / 1000);
  return results.length === seeds.length && results.every((r) => r.ok);
}

function summarize(results: SeedResult[], faults: FaultProfile, seconds: number): void {
  const failing = results.filter((r) => !r.ok).sort((a, b) => a.seed - b.seed);
  for (const result of failing) {
    console.log(`seed ${result.seed} FAILED: ${result.violations[0] ?? ""}`);
    console.log(`  replay: npm run dst -- --seed ${result.seed} --faults ${faults} --trace`);
  }
  const byKind = new Map<string, number>();
  for (const result of results)
    for (const [kind, n] of Object.entries(result.faults))
      byKind.set(kind, (byKind.get(kind) ?? 0) + n);
  const checks = results.reduce((sum, r) => sum + r.checks, 0);
  const spawned = new Map<string, number>();
  for (const result of results)
    for (const [what, n] of Object.entries(result.orchestration ?? {}))
      spawned.set(
        what,
        what === "deepest" ? Math.max(spawned.get(what) ?? 0, n) : (spawned.get(what) ?? 0) + n,
      );
  console.log(
    `runs: ${results.length}, failing: ${failing.length}, seconds: ${seconds.toFixed(1)}`,
  );
  console.log(
    `invariant checks: ${checks} (messages, agents, tool executions, spawn calls and children checked)`,
  );
  console.log(
    `orchestration: ${[...spawned].map(([what, n]) => `${what}=${n}`).join(", ") || "none"}`,
  );
  console.log(
    `faults injected: ${
      [...byKind]
        .sort()
        .map(([kind, n]) => `${kind}=${n}`)
        .join(", ") || "none"
    }`,
  );
}
