import { z } from "zod";
import { withUnavailable } from "../tools/catalogue.js";
import { detectSandbox } from "../tools/sandbox/detect-sandbox.js";
import type { SandboxDetection } from "../tools/sandbox/sandbox.js";
import type { HoldfastConfig } from "./config-file.js";

/**
 * The `sandbox:` section: how the shell runs commands. `bwrap` (the default) runs each in a
 * bubblewrap sandbox and offers no shell where bubblewrap is missing or fails its probe; `none`
 * runs commands unconfined, as the server's user, and must be chosen on purpose.
 */
export const SandboxSection = z.strictObject({
  mode: z.enum(["bwrap", "none"]).default("bwrap"),
});
export type SandboxSection = z.infer<typeof SandboxSection>;

/** The config with the shell marked unavailable when start-up found no sandbox. */
export function withSandbox(config: HoldfastConfig, detection: SandboxDetection): HoldfastConfig {
  if (detection.ok) return config;
  return { ...config, catalogue: withUnavailable(config.catalogue, "shell", detection.reason) };
}

/**
 * Detects the sandbox the config asks for on this machine and applies it: what the server does
 * at start-up, and what `holdfast types` shows so that it tells the same story. `hiddenPaths`
 * are the server's own directories (data, config) that must not show inside the sandbox.
 */
export async function prepareSandbox(
  config: HoldfastConfig,
  hiddenPaths: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ config: HoldfastConfig; detection: SandboxDetection }> {
  const detection = await detectSandbox(config.sandbox.mode, { env, hiddenPaths });
  return { config: withSandbox(config, detection), detection };
}
