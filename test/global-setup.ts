import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * End-to-end tests run the real `holdfast` CLI, which runs the compiled code in dist/:
 * build it (and its bundle, which the CLI prefers) once before any test starts.
 */
export default function setup(): void {
  // For quick runs of unit tests while dist/ is known to be current.
  if (process.env.HOLDFAST_SKIP_BUILD === "1") return;
  const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const bundle = fileURLToPath(new URL("../scripts/bundle-cli.mjs", import.meta.url));
  execFileSync(process.execPath, [bundle], { stdio: "inherit" });
}
