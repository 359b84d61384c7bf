import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "console/src/**/*.test.ts"],
    // These need bubblewrap, a system package: `npm run test:sandbox` (vitest.sandbox.config.ts).
    // test/browser needs Chromium: `npm run test:browser` (vitest.browser.config.ts).
    exclude: ["test/sandbox/**", "test/browser/**", "**/node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
  },
});
