import type { Command } from "commander";

export interface TypesOptions {
  config?: string;
  json?: boolean;
}

/** The `types` commands; what they run loads when one runs (types-action.ts). */
export function registerTypesCommands(program: Command): void {
  const types = program.command("types").description("inspect agent types");
  types
    .command("list")
    .description("list every agent type")
    .option("-c, --config <file>", "config file")
    .option("--json", "print JSON")
    .action(async (options: TypesOptions) =>
      (await import("./types-action.js")).listTypes(options),
    );
  types
    .command("show")
    .argument("<name>", "the type's name")
    .description("show a type's effective capabilities")
    .option("-c, --config <file>", "config file")
    .option("--json", "print JSON")
    .action(async (name: string, options: TypesOptions) =>
      (await import("./types-action.js")).showType(name, options),
    );
}
