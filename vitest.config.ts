import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // These need bubblewrap, a system package: `npm run test:sandbox` (vitest.sandbox.config.ts).
    exclude: ["test/sandbox/**", "**/node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
  },
});
