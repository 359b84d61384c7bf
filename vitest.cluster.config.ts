import { defineConfig } from "vitest/config";

/**
 * The end-to-end files again, every test server on the Restate engine: PostgreSQL and
 * restate-server per file, a database and a worker (in the test's process, with its model and
 * settings) per server (`npm run test:cluster`, part of `npm test`).
 */
export default defineConfig({
  test: {
    // Every file whose servers come from server-kit and run agents, but the one about SQLite's
    // WAL syncs (the durability barrier) and the real provider (skipped without a key). Files
    // about the HTTP layer alone (request bounds, the OpenAPI document, the README's routes)
    // and the shell's sandbox settings run once, in `vitest run`.
    include: [
      "test/agent-file.e2e.test.ts",
      "test/api-fuzz.test.ts",
      "test/archives.e2e.test.ts",
      "test/chains.e2e.test.ts",
      "test/conversations.e2e.test.ts",
      "test/embeddings.e2e.test.ts",
      "test/folders.e2e.test.ts",
      "test/letta-agents.e2e.test.ts",
      "test/letta-blocks.e2e.test.ts",
      "test/letta-flows.e2e.test.ts",
      "test/letta-maintenance.e2e.test.ts",
      "test/letta-parity.e2e.test.ts",
      "test/mcp-config-servers.e2e.test.ts",
      "test/mcp-provider.e2e.test.ts",
      "test/mcp-servers.e2e.test.ts",
      "test/mcp-tool-run.e2e.test.ts",
      "test/memory-depths.e2e.test.ts",
      "test/model-fallbacks.e2e.test.ts",
      "test/observability.e2e.test.ts",
      "test/providers.e2e.test.ts",
      "test/replay-fork.e2e.test.ts",
      "test/run-journal.e2e.test.ts",
      "test/schedule.e2e.test.ts",
      "test/steps.e2e.test.ts",
      "test/structured-output.e2e.test.ts",
      "test/sub-agents.e2e.test.ts",
      "test/web-tools.e2e.test.ts",
    ],
    setupFiles: ["test/support/cluster-setup.ts"],
    env: { HOLDFAST_TEST_ENGINE: "restate" },
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
