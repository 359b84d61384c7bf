import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import * as scenarios from "./scenarios.js";

interface BenchOptions {
  out: string;
  quick?: boolean;
  probeStartup?: boolean;
}

export function registerBenchCommand(program: Command): void {
  program
    .command("bench")
    .description("measure turns/s, latency, memory and checkpoint cost with the sim model")
    .option("--out <file>", "where to write the JSON results", "bench-results.json")
    .option("--quick", "smaller counts, for a smoke run")
    .option("--probe-startup", "internal: time from start to the first completed turn")
    .action(async (options: BenchOptions) => {
      if (options.probeStartup) {
        console.log(String(await scenarios.startupProbe()));
        return;
      }
      const results = await runAll(options.quick === true);
      writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
      printTable(results);
      console.log(`\nwritten to ${options.out}`);
    });
}

async function runAll(quick: boolean) {
  const scale = quick ? 0.1 : 1;
  const n = (count: number) => Math.max(1, Math.round(count * scale));
  const startupMs = Number(
    execFileSync(
      process.execPath,
      [
        fileURLToPath(new URL("../../../bin/holdfast.js", import.meta.url)),
        "bench",
        "--probe-startup",
      ],
      {
        encoding: "utf8",
      },
    ).trim(),
  );
  return {
    machine: { node: process.version, platform: process.platform, arch: process.arch },
    sequential: await scenarios.sequential(n(500)),
    concurrent100x20: await scenarios.concurrent(n(100), 20),
    concurrent1000x5: await scenarios.concurrent(n(1000), 5),
    coldActivation: await scenarios.coldActivation(n(500)),
    idleAgents: await scenarios.idleAgents(n(10_000)),
    checkpoint: await scenarios.checkpointCost(n(2000)),
    startupToFirstTurnMs: startupMs,
  };
}

const f = (value: number, digits = 2) => value.toFixed(digits);

function printTable(r: Awaited<ReturnType<typeof runAll>>): void {
  const rows: [string, string][] = [
    ["sequential turns/s (1 agent)", f(r.sequential.perSecond, 0)],
    ["sequential p50 / p99 ms", `${f(r.sequential.p50Ms)} / ${f(r.sequential.p99Ms)}`],
    ["first vs last 10% p50 ms", `${f(r.sequential.firstP50Ms)} / ${f(r.sequential.lastP50Ms)}`],
    ["concurrent turns/s (100 x 20)", f(r.concurrent100x20.perSecond, 0)],
    ["RSS after 100 x 20 (MB)", f(r.concurrent100x20.rssMb, 0)],
    ["concurrent turns/s (1000 x 5)", f(r.concurrent1000x5.perSecond, 0)],
    ["cold activation p50 / p99 ms", `${f(r.coldActivation.p50Ms)} / ${f(r.coldActivation.p99Ms)}`],
    ["RSS per 10k stored agents (MB)", f(r.idleAgents.storedMbPer10k, 1)],
    ["RSS per 10k active idle agents (MB)", f(r.idleAgents.activeMbPer10k, 1)],
    ["checkpoint commit p50 / p99 ms", `${f(r.checkpoint.p50Ms, 3)} / ${f(r.checkpoint.p99Ms, 3)}`],
    ["start-up to first turn (ms)", f(r.startupToFirstTurnMs, 0)],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
}
