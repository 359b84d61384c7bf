import { writeFileSync } from "node:fs";
import { startEmbeddedPostgres } from "../../storage/postgres/embedded-server.js";
import type { InChild } from "./bench-command.js";
import type { Timings } from "./measure.js";

/**
 * The scenarios that commit, on PostgreSQL and on SQLite in the same run, both with
 * durability `full`: one agent's turns one after another, 100 agents at once, and one step's
 * commit alone (two messages and the checkpoint). Without a URL, a throwaway PostgreSQL on
 * loopback is started (fsync on, as a real server runs) and removed afterwards.
 */
export async function benchPostgres(
  quick: boolean,
  out: string,
  pgUrl: string | undefined,
  inChild: InChild,
): Promise<void> {
  const embedded = pgUrl ? null : await startEmbeddedPostgres();
  const url = pgUrl ?? (embedded?.url as string);
  try {
    const on = (store: "sqlite" | "postgres") => {
      const at = store === "postgres" ? url : undefined;
      return {
        sequential: inChild<Timings>("sequential", quick, "full", at),
        concurrent100x20: inChild<Timings>("concurrent100", quick, "full", at),
        checkpoint: inChild<Timings>("checkpoint", quick, "full", at),
      };
    };
    const results = {
      machine: { node: process.version, platform: process.platform, arch: process.arch },
      postgres: { server: embedded ? "embedded (loopback)" : "given URL", ...on("postgres") },
      sqlite: on("sqlite"),
    };
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    const f = (value: number, digits = 2) => value.toFixed(digits);
    const rows: [string, (r: typeof results.sqlite) => string][] = [
      ["sequential turns/s (1 agent)", (r) => f(r.sequential.perSecond, 0)],
      [
        "sequential turn p50 / p99 ms",
        (r) => `${f(r.sequential.p50Ms)} / ${f(r.sequential.p99Ms)}`,
      ],
      ["concurrent turns/s (100 x 20)", (r) => f(r.concurrent100x20.perSecond, 0)],
      [
        "concurrent turn p50 / p99 ms",
        (r) => `${f(r.concurrent100x20.p50Ms)} / ${f(r.concurrent100x20.p99Ms)}`,
      ],
      [
        "step commit p50 / p99 ms",
        (r) => `${f(r.checkpoint.p50Ms, 3)} / ${f(r.checkpoint.p99Ms, 3)}`,
      ],
    ];
    const width = Math.max(...rows.map(([name]) => name.length));
    console.log(`${"".padEnd(width)}  postgres | sqlite`);
    for (const [name, value] of rows) {
      console.log(`${name.padEnd(width)}  ${value(results.postgres)} | ${value(results.sqlite)}`);
    }
    console.log(`\nwritten to ${out}`);
  } finally {
    await embedded?.stop();
  }
}
