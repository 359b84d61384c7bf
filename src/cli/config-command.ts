import type { Command } from "commander";
import { findConfigPath, loadConfig } from "../config/load-config.js";
import { printErrors } from "./load.js";

export function registerConfigCommands(program: Command): void {
  const config = program.command("config").description("check configuration files");
  config
    .command("check")
    .argument("[file]", "the config file (default: --config, HOLDFAST_CONFIG, ./holdfast.yaml)")
    .description("validate a config file; print every error with its path and exit 1 if any")
    .action((file: string | undefined) => {
      const path = findConfigPath(file, process.env, process.cwd());
      if (path === null) {
        console.error(
          "no config file given and none found (holdfast.yaml, holdfast.yml, holdfast.json)",
        );
        process.exit(1);
      }
      const result = loadConfig(path);
      if (!result.ok) {
        printErrors(path, result.errors, console.log);
        process.exit(1);
      }
      const { registry, catalogue, chains } = result.config;
      const counts = [
        `${registry.list().length} agent types`,
        `${catalogue.packs.size} tool packs`,
        ...(chains.size > 0 ? [`${chains.size} chain${chains.size === 1 ? "" : "s"}`] : []),
      ];
      console.log(`${path}: ok (${counts.join(", ")})`);
    });
}
