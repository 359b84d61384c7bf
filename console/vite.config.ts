import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/**
 * The web console: Preact, bundled by Vite into `dist/console`, which the server serves at
 * `/console/`. Everything it needs is in the bundle (no CDN). `HOLDFAST_CONSOLE_OUT` builds
 * elsewhere (the size test builds into a temp directory so it never races a running build).
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/console/",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir:
      process.env.HOLDFAST_CONSOLE_OUT ??
      fileURLToPath(new URL("../dist/console", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
  },
});
