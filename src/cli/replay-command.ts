import type { Command } from "commander";
import { z } from "zod";
import {
  CliError,
  type ClientOptions,
  createClient,
  resolveAgentId,
  runOrExit,
  segment,
  withServerOptions,
} from "./http-client.js";

/** What `POST /v1/runs/{run_id}/replay` answers. */
const ReplayAnswer = z.looseObject({
  run_id: z.string(),
  agent_id: z.string(),
  agent_type: z.string(),
  matches: z.boolean(),
  steps: z.number().optional(),
  complete: z.boolean().optional(),
  step: z.number().optional(),
  step_id: z.string().nullish(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  reason: z.string().optional(),
});
type ReplayAnswer = z.infer<typeof ReplayAnswer>;

interface ReplayOptions extends ClientOptions {
  run?: string;
  json?: boolean;
}

/** Exit status of a replay that found a divergence (1 is for errors, as everywhere). */
export const DIVERGED_EXIT_CODE = 2;

/**
 * `holdfast replay AGENT [--run ID]`: asks the running server to replay a run (the agent's
 * latest by default) against today's type, tool rules and limits. It goes through the server,
 * not the data directory: the server holds the directory's lock, and its config is "today's".
 */
export function registerReplayCommand(program: Command): void {
  withServerOptions(
    program
      .command("replay")
      .description(
        "replay a recorded run against today's code and config: the first step that decides " +
          `differently (exit ${DIVERGED_EXIT_CODE}), or a match (exit 0); no model is called`,
      ),
  )
    .argument("<agent>", "the agent's id or name")
    .option("--run <id>", "the run to replay (default: the agent's latest)")
    .option("--json", "print the server's answer as JSON")
    .action((idOrName: string, options: ReplayOptions) =>
      runOrExit(async () => {
        const client = createClient(options);
        const agentId = await resolveAgentId(client, idOrName);
        const runId = options.run ?? (await latestRun(client, agentId));
        const raw = await client.request("POST", `/v1/runs/${segment(runId)}/replay`);
        const answer = ReplayAnswer.parse(raw);
        if (answer.agent_id !== agentId) {
          throw new CliError(`run '${runId}' is not a run of agent '${agentId}'`);
        }
        console.log(options.json ? JSON.stringify(answer, null, 2) : formatReplay(answer));
        if (!answer.matches) process.exitCode = DIVERGED_EXIT_CODE;
      }),
    );
}

async function latestRun(client: ReturnType<typeof createClient>, agentId: string) {
  const query = `agent_id=${segment(agentId)}&order=desc&limit=1`;
  const runs = await client.request<{ id: string }[]>("GET", `/v1/runs/?${query}`);
  const latest = runs[0];
  if (!latest) throw new CliError(`agent '${agentId}' has no runs to replay`);
  return latest.id;
}

export function formatReplay(answer: ReplayAnswer): string {
  const head = `run ${answer.run_id} of ${answer.agent_id} (type ${answer.agent_type})`;
  if (answer.matches) {
    const upTo = answer.complete ? "" : " so far (the run has not ended)";
    return `${head}: matches${upTo}: today's code and config make the same ${answer.steps} decisions`;
  }
  const after = answer.step_id ? ` (in model step ${answer.step_id})` : "";
  return [
    `${head}: diverges at decision ${answer.step}${after}`,
    `  recorded: ${answer.expected}`,
    `  today:    ${answer.actual}`,
    `  why:      ${answer.reason}`,
  ].join("\n");
}
