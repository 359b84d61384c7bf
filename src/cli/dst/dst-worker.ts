import { parentPort, workerData } from "node:worker_threads";
import type { FaultProfile } from "../../sim/fault-plan.js";
import { runSeed } from "../../sim/run-seed.js";

/** Runs the seeds it is given, one message per seed. */
const { seeds, faults } = workerData as { seeds: number[]; faults: FaultProfile };
for (const seed of seeds) {
  const result = await runSeed({ seed, faults });
  parentPort?.postMessage(result);
}
