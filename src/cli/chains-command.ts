import type { Command } from "commander";
import { ChainProgress, type ChainRunView, renderProgress, summary } from "./chain-progress.js";
import {
  type ClientOptions,
  createClient,
  runOrExit,
  type StreamChunk,
  segment,
  withServerOptions,
} from "./http-client.js";

interface ChainView {
  name: string;
  description: string;
  stages: {
    name: string;
    parallel: boolean;
    success: string;
    agents: { name: string; agent_type: string }[];
    synthesis: { agent_type: string } | null;
    min_score: number | null;
  }[];
}

interface RunOptions extends ClientOptions {
  json?: boolean;
}

export function registerChainsCommands(program: Command): void {
  const chains = program.command("chains").description("run the chains of a running server");
  withServerOptions(chains.command("list").description("list the configured chains"))
    .option("--json", "print JSON")
    .action((options: RunOptions) =>
      runOrExit(async () => {
        const list = await createClient(options).request<ChainView[]>("GET", "/v1/chains");
        if (options.json) return console.log(JSON.stringify(list, null, 2));
        if (list.length === 0) return console.log("no chains: add `chains:` to holdfast.yaml");
        for (const chain of list) console.log(describeChain(chain));
      }),
    );
  withServerOptions(
    chains
      .command("run")
      .description("run a chain on an input and follow it live; exits 1 if it does not complete")
      .argument("<name>", "the chain")
      .argument("<input>", "what the chain works on"),
  )
    .option("--json", "print the finished run as JSON instead of following it")
    .action((name: string, input: string, options: RunOptions) =>
      runOrExit(async () => {
        const client = createClient(options);
        const path = `/v1/chains/${segment(name)}/runs`;
        if (options.json) {
          const run = await client.request<ChainRunView>("POST", path, { input });
          console.log(JSON.stringify(run, null, 2));
          return exitFor(run.status);
        }
        const events = client.stream("POST", path, { input, stream: true, stream_tokens: true });
        exitFor(await follow(events));
      }),
    );
  withServerOptions(
    chains
      .command("watch")
      .description("follow a chain run until it ends")
      .argument("<run-id>", "the chain run"),
  ).action((runId: string, options: ClientOptions) =>
    runOrExit(async () => {
      const events = createClient(options).stream(
        "GET",
        `/v1/chain-runs/${segment(runId)}/stream?stream_tokens=true`,
      );
      exitFor(await follow(events));
    }),
  );
  withServerOptions(
    chains
      .command("approve")
      .description("answer an approval a chain run waits for (approves unless --deny)")
      .argument("<run-id>", "the chain run")
      .argument("<tool-call-id>", "the tool call asking for approval"),
  )
    .option("--deny", "deny it")
    .option("--reason <text>", "why (shown to the agent)")
    .action(
      (
        runId: string,
        toolCallId: string,
        options: ClientOptions & { deny?: boolean; reason?: string },
      ) =>
        runOrExit(async () => {
          const approval = {
            tool_call_id: toolCallId,
            approve: !options.deny,
            reason: options.reason ?? null,
          };
          const run = await createClient(options).request<ChainRunView>(
            "POST",
            `/v1/chain-runs/${segment(runId)}/approvals`,
            { approvals: [approval] },
          );
          console.log(`run ${run.id}: ${run.status}`);
        }),
    );
}

/** One chain on one line: its stages, parallel ones marked, synthesis and scoring shown. */
export function describeChain(chain: ChainView): string {
  const stages = chain.stages.map((stage) => {
    if (stage.min_score !== null || stage.agents.some((a) => a.agent_type === "scoring")) {
      return `${stage.name}(score${stage.min_score === null ? "" : ` ≥ ${stage.min_score}`})`;
    }
    const join = stage.parallel ? " ∥ " : ", ";
    const agents = stage.agents.map((a) => a.name).join(join);
    const any = stage.success === "any" ? "first of " : "";
    const synthesis = stage.synthesis ? ` → ${stage.synthesis.agent_type}` : "";
    return `${stage.name}(${any}${agents}${synthesis})`;
  });
  const description = chain.description ? `  ${chain.description}` : "";
  return `${chain.name}: ${stages.join(" → ")}${description}`;
}

/**
 * Follows a run's stream to its end: a live view redrawn in place in a terminal, a line per
 * change otherwise. Returns the run's final status.
 */
async function follow(events: AsyncGenerator<StreamChunk>): Promise<string> {
  const progress = new ChainProgress();
  const live = process.stdout.isTTY === true;
  let drawn = 0;
  let tick = 0;
  const draw = () => {
    const lines = renderProgress(progress, tick++, process.stdout.columns || 100);
    process.stdout.write(`${drawn > 0 ? `\x1b[${drawn}F\x1b[J` : ""}${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const timer = live ? setInterval(draw, 100) : null;
  try {
    for await (const chunk of events) {
      const lines = progress.apply(chunk);
      if (!live) for (const line of lines) console.log(line);
    }
  } finally {
    if (timer) clearInterval(timer);
  }
  if (live) draw();
  const run = progress.run;
  if (!run) return "unknown";
  for (const line of summary(run)) console.log(line);
  return run.status;
}

function exitFor(status: string): void {
  if (status !== "completed") process.exitCode = 1;
}
