import { Command } from "commander";
import { VERSION } from "../core/version.js";
import { registerAgentsCommands } from "./agents-command.js";
import { registerBenchCommand } from "./bench/bench-command.js";
import { registerChainsCommands } from "./chains-command.js";
import { registerChatCommand } from "./chat-command.js";
import { registerConfigCommands } from "./config-command.js";
import { registerDevCommands } from "./dev/dev-command.js";
import { registerDstCommand } from "./dst/dst-command.js";
import { registerReplayCommand } from "./replay-command.js";
import { registerServeCommand } from "./serve-command.js";
import { registerTypesCommands } from "./types-command.js";
import { registerWorkerCommand } from "./worker-command.js";

const program = new Command("holdfast")
  .description("Holdfast: a server for stateful AI agents")
  .version(VERSION);
registerServeCommand(program);
registerWorkerCommand(program);
registerTypesCommands(program);
registerConfigCommands(program);
registerBenchCommand(program);
registerDstCommand(program);
registerAgentsCommands(program);
registerChatCommand(program);
registerChainsCommands(program);
registerReplayCommand(program);
registerDevCommands(program);

await program.parseAsync(process.argv);
