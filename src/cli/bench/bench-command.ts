import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Command, Option } from "commander";
import type { Durability } from "../../storage/durability.js";
import type { chainOverhead } from "./chain.js";
import type { commitFloor } from "./commit-floor.js";
import type { fanOut } from "./fan-out.js";
import type { httpTurns } from "./http-turns.js";
import type { memoryQueries } from "./memory-queries.js";
import type { prefixStability } from "./prefix-stability.js";
import type { recallCost } from "./recall.js";
import type * as scenarios from "./scenarios.js";
import type { BenchStore } from "./scenarios.js";
import type { serveStartup } from "./serve-startup.js";
import type { stalls } from "./stalls.js";
import type { vectorSearch } from "./vector-search.js";

interface BenchOptions {
  out: string;
  quick?: boolean;
  scenario?: string;
  durability: Durability;
  store: "sqlite" | "postgres";
  pgUrl?: string;
  engine: "embedded" | "restate";
  restateWorker?: string;
  restateIngress?: string;
  schema?: string;
}

export function registerBenchCommand(program: Command): void {
  program
    .command("bench")
    .description("measure turns/s, latency, memory and checkpoint cost with the sim model")
    .option("--out <file>", "where to write the JSON results", "bench-results.json")
    .option("--quick", "smaller counts, for a smoke run")
    .option("--scenario <name>", "internal: run one scenario in this process and print JSON")
    .addOption(
      new Option("--durability <mode>", "with --scenario: the store's durability")
        .choices(["full", "normal"])
        .default("full"),
    )
    .addOption(
      new Option(
        "--store <kind>",
        "postgres: the committing scenarios on PostgreSQL beside SQLite, or with --scenario " +
          "that one on PostgreSQL (a throwaway embedded PostgreSQL unless --pg-url is given)",
      )
        .choices(["sqlite", "postgres"])
        .default("sqlite"),
    )
    .option("--pg-url <url>", "with --store postgres: the database to use (a schema is made)")
    .addOption(
      new Option(
        "--engine <engine>",
        "restate: turns through the Restate engine (restate-server, 1 and 2 worker processes, " +
          "PostgreSQL) beside the embedded engine",
      )
        .choices(["embedded", "restate"])
        .default("embedded"),
    )
    .addOption(new Option("--restate-worker <port>", "internal: serve a bench worker").hideHelp())
    .addOption(new Option("--restate-ingress <url>", "internal: for --restate-worker").hideHelp())
    .addOption(new Option("--schema <name>", "internal: for --restate-worker").hideHelp())
    .action(async (options: BenchOptions) => {
      const quick = options.quick === true;
      if (options.restateWorker && options.pgUrl && options.restateIngress && options.schema) {
        const { serveBenchWorker } = await import("./restate-bench.js");
        const port = Number(options.restateWorker);
        await serveBenchWorker(port, options.pgUrl, options.schema, options.restateIngress);
        return;
      }
      if (options.engine === "restate") {
        const { benchRestate } = await import("./restate-bench.js");
        await benchRestate(quick, options.out, inChild);
        return;
      }
      if (options.scenario) {
        const result = await onStore(options, (pgUrl) =>
          runScenario(options.scenario ?? "", quick, { durability: options.durability, pgUrl }),
        );
        console.log(JSON.stringify(result));
        return;
      }
      if (options.store === "postgres") {
        const { benchPostgres } = await import("./postgres-bench.js");
        await benchPostgres(quick, options.out, options.pgUrl, inChild);
        return;
      }
      const results = runAll(options.quick === true);
      writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
      printTable(results);
      console.log(`\nwritten to ${options.out}`);
    });
}

/**
 * Runs a scenario on the store the options name: with `--store postgres` and no `--pg-url`, a
 * throwaway embedded PostgreSQL is started for it and removed afterwards.
 */
async function onStore<T>(
  options: BenchOptions,
  run: (pgUrl: string | undefined) => Promise<T>,
): Promise<T> {
  if (options.store !== "postgres" || options.pgUrl) return run(options.pgUrl);
  const { startEmbeddedPostgres } = await import("../../storage/postgres/embedded-server.js");
  const embedded = await startEmbeddedPostgres();
  try {
    return await run(embedded.url);
  } finally {
    await embedded.stop();
  }
}

/** Each scenario runs in a process of its own, so memory and start-up figures are its own. */
function inChild<T>(
  name: string,
  quick: boolean,
  durability: Durability = "full",
  pgUrl?: string,
): T {
  const bin = fileURLToPath(new URL("../../../bin/holdfast.js", import.meta.url));
  // Each scenario runs with the bench's own Node flags (`npm run bench`: the young generation's cap).
  const flags = [...new Set([...process.execArgv, "--expose-gc"])];
  const args = [...flags, bin, "bench", "--scenario", name, "--durability", durability];
  if (quick) args.push("--quick");
  if (pgUrl) args.push("--pg-url", pgUrl);
  return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8" })) as T;
}

export type InChild = typeof inChild;

/** Fan-out, memory and the others run on SQLite of the default durability (full). */
async function runScenario(name: string, quick: boolean, target: BenchStore): Promise<unknown> {
  const { durability } = target;
  const scenarios = await import("./scenarios.js");
  const n = (count: number) => Math.max(1, Math.round(count * (quick ? 0.1 : 1)));
  switch (name) {
    case "sequential":
      return scenarios.sequential(n(500), target);
    case "concurrent100":
      return scenarios.concurrent(n(100), 20, target);
    case "concurrent1000":
      return scenarios.concurrent(n(1000), 5, target);
    case "cold":
      return scenarios.coldActivation(n(500));
    case "idle":
      return scenarios.idleAgents(n(10_000));
    case "checkpoint":
      return scenarios.checkpointCost(n(2000), target);
    case "startup":
      return scenarios.startupProbe();
    case "serve":
      return (await import("./serve-startup.js")).serveStartup(quick ? 2 : 7);
    case "floor":
      return (await import("./commit-floor.js")).commitFloor(n(300), target);
    case "http":
      return (await import("./http-turns.js")).httpTurns(n(300), durability);
    case "stalls":
      return (await import("./stalls.js")).stalls(quick ? 5_000 : 50_000, quick ? 1 : 9);
    case "fanout":
      return (await import("./fan-out.js")).fanOut(n(200));
    case "memory":
      return (await import("./memory-queries.js")).memoryQueries(
        quick ? [1_000, 10_000] : [1_000, 10_000, 100_000],
        target.pgUrl,
      );
    case "vectors":
      return (await import("./vector-search.js")).vectorSearch(
        quick ? [10_000, 20_000] : [10_000, 100_000],
      );
    case "recall":
      return (await import("./recall.js")).recallCost(n(300), quick ? 1_000 : 10_000);
    case "chain":
      return (await import("./chain.js")).chainOverhead(n(300), durability);
    case "prefix": {
      // The figure is defined over 50 turns (--quick does not shorten it); 150 turns go past
      // the 200-message history window, where the window's start has to move.
      const { prefixStability } = await import("./prefix-stability.js");
      return { short: await prefixStability(50), long: await prefixStability(150) };
    }
    default:
      throw new Error(`unknown scenario ${name}`);
  }
}

type Of<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** What each durability costs: the scenarios that commit, on a `normal` store (no fsync each). */
function runNormal(quick: boolean) {
  return {
    sequential: inChild<Of<typeof scenarios.sequential>>("sequential", quick, "normal"),
    concurrent100x20: inChild<Of<typeof scenarios.concurrent>>("concurrent100", quick, "normal"),
    concurrent1000x5: inChild<Of<typeof scenarios.concurrent>>("concurrent1000", quick, "normal"),
    checkpoint: inChild<Of<typeof scenarios.checkpointCost>>("checkpoint", quick, "normal"),
  };
}

/** Every scenario on a `full` store (the default), then the committing ones on `normal`. */
function runAll(quick: boolean) {
  return {
    machine: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      // Every scenario's process runs with these (inChild passes them on).
      nodeFlags: process.execArgv.join(" "),
    },
    sequential: inChild<Of<typeof scenarios.sequential>>("sequential", quick),
    concurrent100x20: inChild<Of<typeof scenarios.concurrent>>("concurrent100", quick),
    concurrent1000x5: inChild<Of<typeof scenarios.concurrent>>("concurrent1000", quick),
    coldActivation: inChild<Of<typeof scenarios.coldActivation>>("cold", quick),
    idleAgents: inChild<Of<typeof scenarios.idleAgents>>("idle", quick),
    checkpoint: inChild<Of<typeof scenarios.checkpointCost>>("checkpoint", quick),
    startupToFirstTurnMs: inChild<number>("startup", quick),
    serveStartup: inChild<Awaited<ReturnType<typeof serveStartup>>>("serve", quick),
    floor: inChild<Awaited<ReturnType<typeof commitFloor>>>("floor", quick),
    http: inChild<Awaited<ReturnType<typeof httpTurns>>>("http", quick),
    stalls: inChild<Awaited<ReturnType<typeof stalls>>>("stalls", quick),
    fanOut: inChild<Awaited<ReturnType<typeof fanOut>>>("fanout", quick),
    chain: inChild<Awaited<ReturnType<typeof chainOverhead>>>("chain", quick),
    memory: inChild<Awaited<ReturnType<typeof memoryQueries>>>("memory", quick),
    prefix: inChild<Record<"short" | "long", Of<typeof prefixStability>>>("prefix", quick),
    vectors: inChild<Awaited<ReturnType<typeof vectorSearch>>>("vectors", quick),
    recall: inChild<Awaited<ReturnType<typeof recallCost>>>("recall", quick),
    durabilityNormal: runNormal(quick),
  };
}

const f = (value: number, digits = 2) => value.toFixed(digits);

function printTable(r: ReturnType<typeof runAll>): void {
  const normal = r.durabilityNormal;
  // Labels give the counts that ran (a tenth of them with --quick).
  const burst = `${r.concurrent100x20.count / 20} x 20`;
  const wide = `${r.concurrent1000x5.count / 5} x 5`;
  const rows: [string, string][] = [
    [
      "sequential turns/s (1 agent), full / normal",
      `${f(r.sequential.perSecond, 0)} / ${f(normal.sequential.perSecond, 0)}`,
    ],
    ["sequential p50 / p99 ms", `${f(r.sequential.p50Ms)} / ${f(r.sequential.p99Ms)}`],
    [
      "sequential p50 / p99 ms, normal",
      `${f(normal.sequential.p50Ms)} / ${f(normal.sequential.p99Ms)}`,
    ],
    ["first vs last 10% p50 ms", `${f(r.sequential.firstP50Ms)} / ${f(r.sequential.lastP50Ms)}`],
    [
      `concurrent turns/s (${burst}), full / normal`,
      `${f(r.concurrent100x20.perSecond, 0)} / ${f(normal.concurrent100x20.perSecond, 0)}`,
    ],
    [
      `RSS / live heap after ${burst} (MB)`,
      `${f(r.concurrent100x20.rssMb, 0)} / ${f(r.concurrent100x20.heapMb, 0)}`,
    ],
    [
      `concurrent turns/s (${wide}), full / normal`,
      `${f(r.concurrent1000x5.perSecond, 0)} / ${f(normal.concurrent1000x5.perSecond, 0)}`,
    ],
    ["cold activation p50 / p99 ms", `${f(r.coldActivation.p50Ms)} / ${f(r.coldActivation.p99Ms)}`],
    ["heap per 10k stored agents (MB)", f(r.idleAgents.storedHeapMbPer10k, 1)],
    ["heap per 10k activated idle agents (MB)", f(r.idleAgents.activeHeapMbPer10k, 1)],
    [`RSS with ${r.idleAgents.agents} agents active (MB)`, f(r.idleAgents.rssMbWithAllActive, 0)],
    ["checkpoint commit p50 / p99 ms", `${f(r.checkpoint.p50Ms, 3)} / ${f(r.checkpoint.p99Ms, 3)}`],
    [
      "checkpoint commit p50 / p99 ms, normal",
      `${f(normal.checkpoint.p50Ms, 3)} / ${f(normal.checkpoint.p99Ms, 3)}`,
    ],
    ["start-up to first turn (ms)", f(r.startupToFirstTurnMs, 0)],
    [
      `holdfast serve to listening / to first turn over HTTP p50 ms (min; of ${r.serveStartup.starts})`,
      `${f(r.serveStartup.listeningP50Ms, 0)} / ${f(r.serveStartup.firstTurnP50Ms, 0)} ` +
        `(${f(r.serveStartup.firstTurnMinMs, 0)})`,
    ],
    ["holdfast serve RSS after its first turn (MB)", f(r.serveStartup.rssP50Mb, 0)],
    [
      `turn p50 / its ${r.floor.commitsPerTurn} commits alone p50 ms (ratio; their WAL sync alone)`,
      `${f(r.floor.turnP50Ms)} / ${f(r.floor.floorP50Ms)} (${f(r.floor.ratio, 1)}x; ` +
        `${f(r.floor.syncP50Ms)})`,
    ],
    [
      "turn p50 in-process / over HTTP with Letta's client in its own process ms " +
        "(overhead p50; bare HTTP p50)",
      `${f(r.http.inProcessP50Ms)} / ${f(r.http.ownProcess.httpP50Ms)} ` +
        `(${f(r.http.ownProcess.overheadP50Ms)}; ${f(r.http.ownProcess.bareRoundTripP50Ms)})`,
    ],
    [
      "  the same, Letta's client in the server's process (overhead p50; bare HTTP p50)",
      `${f(r.http.inProcessP50Ms)} / ${f(r.http.sameProcess.httpP50Ms)} ` +
        `(${f(r.http.sameProcess.overheadP50Ms)}; ${f(r.http.sameProcess.bareRoundTripP50Ms)})`,
    ],
    ...r.stalls.map((stall): [string, string] => [
      `stall: ${stall.what}: request / slowest /v1/health/ ms`,
      `${f(stall.ms, 0)} / ${f(stall.worstHealthMs, 0)}`,
    ]),
    [
      `fan-out: spawn call to all ${r.fanOut.width} children running p50 / p99 ms`,
      `${f(r.fanOut.spawnToAllRunning.p50Ms)} / ${f(r.fanOut.spawnToAllRunning.p99Ms)}`,
    ],
    [
      "fan-out: spawn call to first child running p50 / p99 ms",
      `${f(r.fanOut.spawnToFirstRunning.p50Ms)} / ${f(r.fanOut.spawnToFirstRunning.p99Ms)}`,
    ],
    [
      `fan-out turn (1 parent, ${r.fanOut.width} children) p50 / p99 ms`,
      `${f(r.fanOut.fanOutTurn.p50Ms)} / ${f(r.fanOut.fanOutTurn.p99Ms)}`,
    ],
    ["fan-out turns/s (one at a time)", f(r.fanOut.fanOutTurn.perSecond, 0)],
    [
      `${r.fanOut.width} plain turns at once p50 / p99 ms`,
      `${f(r.fanOut.plainTurnsAtOnce.p50Ms)} / ${f(r.fanOut.plainTurnsAtOnce.p99Ms)}`,
    ],
    [`${r.fanOut.width} plain turns at once, rounds/s`, f(r.fanOut.plainTurnsAtOnce.perSecond, 0)],
    [
      "fan-out turn / plain turns at once (p50 / p99)",
      `${f(r.fanOut.overheadRatioP50)} / ${f(r.fanOut.overheadRatioP99)}`,
    ],
    [
      "chain run (3 parallel → synthesis) p50 / p99 ms",
      `${f(r.chain.chainRun.p50Ms)} / ${f(r.chain.chainRun.p99Ms)}`,
    ],
    [
      "same 4 turns direct, warm agents p50 / p99 ms",
      `${f(r.chain.fourTurnsWarm.p50Ms)} / ${f(r.chain.fourTurnsWarm.p99Ms)}`,
    ],
    [
      "same 4 turns direct, new agents p50 / p99 ms",
      `${f(r.chain.fourTurnsFresh.p50Ms)} / ${f(r.chain.fourTurnsFresh.p99Ms)}`,
    ],
    [
      "chain / direct p50 (warm / new agents)",
      `${f(r.chain.overheadVsWarmP50)} / ${f(r.chain.overheadVsFreshP50)}`,
    ],
    ...[r.prefix.short, r.prefix.long].map((p): [string, string] => [
      `prompt prefix repeated from the previous call, ${p.turns} turns / ${p.calls} calls`,
      `${f(p.prefixShare * 100, 1)}% (lowest call ${f(p.minCallShare * 100, 1)}%, ${p.callsBreakingPrefix} calls broke it)`,
    ]),
    ...r.memory.rows.map((m): [string, string] => [
      `memory at ${m.passages} passages (${m.agents} agents): list / by words / search rare / common / block / messages p50 ms`,
      [
        m.listPageP50Ms,
        m.listByWordsP50Ms,
        m.searchRareP50Ms,
        m.searchFilteredP50Ms,
        m.blockByIdP50Ms,
        m.searchMessagesP50Ms,
      ]
        .map((ms) => f(ms, 3))
        .join(" / "),
    ]),
    ...r.memory.oneAgent.map((m): [string, string] => [
      `search, one agent with ${m.passages} passages: rare / common words / common in messages p50 ms`,
      [m.searchRareP50Ms, m.searchCommonP50Ms, m.searchMessagesCommonP50Ms]
        .map((ms) => f(ms, 3))
        .join(" / "),
    ]),
    ...r.vectors.map((v): [string, string] => [
      `archival search, one agent with ${v.passages} passages (${v.dimensions}-d vectors): vector / hybrid searches per s`,
      `${v.vectorSearchesPerSecond} / ${v.hybridSearchesPerSecond} (${v.passagesComparedPerSecond} passages compared per s)`,
    ]),
    [
      `turn p50 ms, persistent / learning (recall over ${r.recall.passages} passages and the history)`,
      `${f(r.recall.plain.p50Ms)} / ${f(r.recall.learning.p50Ms)} (recall adds ${f(r.recall.recallOverheadP50Ms)})`,
    ],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  const { node, nodeFlags } = r.machine;
  console.log(`Node ${node}, flags: ${nodeFlags || "none"}`);
  for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
}
