import { defineConfig } from "vitest/config";

/**
 * The console's browser tests (`npm run test:browser`): they drive Debian's Chromium
 * (`/usr/bin/chromium`, a system package) with playwright-core, so `npm test` leaves them out and
 * CI runs them after installing it (.ci/run). Screenshots land in test-results/console/.
 */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
