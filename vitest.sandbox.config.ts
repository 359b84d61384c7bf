import { defineConfig } from "vitest/config";

/**
 * The sandbox attack tests (`npm run test:sandbox`): they need bubblewrap, a system package, so
 * `npm test` leaves them out and CI runs them after installing it (.ci/run).
 *
 * The canary is a stand-in for a provider key in the server's environment. It is set here, in
 * the main process, before the test workers are forked, so that it is in their *initial*
 * environment, the one /proc/PID/environ shows (setting process.env in a test would not be).
 */
process.env.HOLDFAST_SANDBOX_CANARY = "sk-canary-from-the-server-environment";

export default defineConfig({
  test: {
    include: ["test/sandbox/**/*.test.ts"],
    pool: "forks",
    testTimeout: 30_000,
  },
});
