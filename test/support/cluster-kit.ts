import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type Cluster, startCluster } from "../../src/cli/dev/cluster.js";
import {
  type FakeOpenAiServer,
  type ReplyFor,
  startFakeOpenAiServer,
} from "../fake-openai-server.js";
import { providerEnv } from "./fake-agents.js";
import { tempDir } from "./temp-dirs.js";

/** A test file's cluster of real processes and the fake provider its models call. */
export interface ClusterUnderTest {
  cluster: Cluster;
  provider: FakeOpenAiServer;
}

/**
 * The scale-out engine as `holdfast dev cluster` starts it (PostgreSQL, restate-server,
 * workers, the API), once for a test file: started in `beforeAll`, stopped in `afterAll`. Every
 * `openai-compatible/*` model is the fake provider answering with `reply`; `config` (YAML),
 * if given, is the processes' config file.
 */
export function useCluster(
  reply: ReplyFor,
  options: { workers: number; config?: string },
): ClusterUnderTest {
  const under = {} as ClusterUnderTest;
  beforeAll(async () => {
    under.provider = await startFakeOpenAiServer(reply);
    const args: string[] = [];
    if (options.config) {
      const file = join(tempDir("holdfast-cluster-config-"), "holdfast.yaml");
      writeFileSync(file, options.config);
      args.push("--config", file);
    }
    under.cluster = await startCluster({
      workers: options.workers,
      apiPort: 0,
      env: providerEnv(under.provider.baseUrl),
      args,
    });
  }, 240_000);
  afterAll(async () => {
    await under.cluster?.stop();
    await under.provider?.close();
  }, 120_000);
  return under;
}
