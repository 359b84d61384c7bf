import type { Command } from "commander";
import { z } from "zod";
import { registerTreeCommand } from "./agents-tree.js";
import {
  CliError,
  type ClientOptions,
  createClient,
  type HttpClient,
  resolveAgentId,
  runOrExit,
  segment,
  withServerOptions,
} from "./http-client.js";

/** The parts of Letta's AgentState the CLI shows; the rest pass through. */
const AgentView = z.looseObject({
  id: z.string(),
  name: z.string(),
  agent_type: z.string(),
  model: z.string().nullish(),
  llm_config: z
    .looseObject({ handle: z.string().nullish(), model: z.string().nullish() })
    .nullish(),
  blocks: z
    .array(z.looseObject({ label: z.string(), value: z.string(), limit: z.number().nullish() }))
    .default([]),
  tools: z.array(z.looseObject({ name: z.string() })).default([]),
  /** Holdfast's progress of embedding the agent's memory (absent from other servers). */
  embedding_status: z
    .looseObject({
      model: z.string().nullable(),
      embedded: z.number(),
      total: z.number(),
      state: z.string(),
      last_error: z.string().nullable(),
    })
    .nullish(),
});
type AgentView = z.infer<typeof AgentView>;

interface JsonOptions extends ClientOptions {
  json?: boolean;
}

interface CreateOptions extends ClientOptions {
  type: string;
  name: string;
  model?: string;
  block?: string[];
}

const PAGE_LIMIT = 100;

export function registerAgentsCommands(program: Command): void {
  const agents = program.command("agents").description("manage the agents of a running server");
  withServerOptions(agents.command("list").description("list the agents"))
    .option("--json", "print JSON")
    .action((options: JsonOptions) =>
      runOrExit(async () => {
        const list = await listAgents(createClient(options));
        if (options.json) return console.log(JSON.stringify(list, null, 2));
        console.log(formatTable(list));
      }),
    );
  withServerOptions(agents.command("create").description("create an agent; prints its id"))
    .requiredOption("--type <type>", "the agent type (see `holdfast types list`)")
    .requiredOption("--name <name>", "the agent's name")
    .option("--model <handle>", "model handle, e.g. openai/gpt-4o (default: the server's)")
    .option("--block <label=value>", "a core memory block (repeatable)", collect)
    .action((options: CreateOptions) =>
      runOrExit(async () => {
        const body = {
          agent_type: options.type,
          name: options.name,
          ...(options.model ? { model: options.model } : {}),
          ...(options.block ? { memory_blocks: options.block.map(parseBlock) } : {}),
        };
        const agent = parseAgent(await createClient(options).request("POST", "/v1/agents/", body));
        console.log(agent.id);
      }),
    );
  withServerOptions(agents.command("show").description("show an agent's type, model and memory"))
    .argument("<agent>", "the agent's id or name")
    .option("--json", "print JSON")
    .action((idOrName: string, options: JsonOptions) =>
      runOrExit(async () => {
        const client = createClient(options);
        const id = await resolveAgentId(client, idOrName);
        const raw = await client.request("GET", `/v1/agents/${segment(id)}`);
        if (options.json) return console.log(JSON.stringify(raw, null, 2));
        console.log(formatAgent(parseAgent(raw)));
      }),
    );
  registerTreeCommand(agents);
  withServerOptions(agents.command("delete").description("delete an agent and all it has"))
    .argument("<agent>", "the agent's id or name")
    .action((idOrName: string, options: ClientOptions) =>
      runOrExit(async () => {
        const client = createClient(options);
        const id = await resolveAgentId(client, idOrName);
        await client.request("DELETE", `/v1/agents/${segment(id)}`);
        console.log(`deleted ${id}`);
      }),
    );
}

/** Every agent, oldest first, following the `after` cursor until a page comes back empty. */
async function listAgents(client: HttpClient): Promise<AgentView[]> {
  const all: AgentView[] = [];
  let after: string | undefined;
  for (;;) {
    const query = `limit=${PAGE_LIMIT}&order=asc${after ? `&after=${segment(after)}` : ""}`;
    const page = z.array(z.unknown()).parse(await client.request("GET", `/v1/agents/?${query}`));
    all.push(...page.map(parseAgent));
    after = all.at(-1)?.id;
    if (page.length < PAGE_LIMIT) return all;
  }
}

function parseAgent(raw: unknown): AgentView {
  const parsed = AgentView.safeParse(raw);
  if (!parsed.success) throw new CliError("the server sent an agent the CLI cannot read");
  return parsed.data;
}

const modelOf = (agent: AgentView) =>
  agent.model ?? agent.llm_config?.handle ?? agent.llm_config?.model ?? "(server default)";

function formatTable(list: readonly AgentView[]): string {
  if (list.length === 0) return "no agents yet: create one with `holdfast agents create`";
  const rows = [
    ["ID", "NAME", "TYPE", "MODEL"],
    ...list.map((agent) => [agent.id, agent.name, agent.agent_type, modelOf(agent)]),
  ];
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  return rows
    .map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  "))
    .map((line) => line.trimEnd())
    .join("\n");
}

function formatAgent(agent: AgentView): string {
  const labelWidth = Math.max(5, ...agent.blocks.map((block) => block.label.length));
  const lines = [
    `${agent.name} (${agent.id})`,
    `  type    ${agent.agent_type}`,
    `  model   ${modelOf(agent)}`,
    `  blocks${agent.blocks.length === 0 ? "  (none)" : ""}`,
    ...agent.blocks.map((block) => {
      const size = `${block.value.length}/${block.limit ?? "∞"} chars`;
      const preview = oneLine(block.value, 60);
      return `    ${block.label.padEnd(labelWidth)}  ${size.padStart(16)}${preview ? `  ${preview}` : ""}`;
    }),
    `  tools   ${agent.tools.length === 0 ? "(none)" : agent.tools.map((tool) => tool.name).join(", ")}`,
    ...searchLines(agent.embedding_status),
  ];
  return lines.join("\n");
}

/** How the agent's memory is searched, and how far its embedding has got. */
function searchLines(status: AgentView["embedding_status"]): string[] {
  if (!status) return [];
  if (status.model === null) return ["  search  full-text only (no embedding model)"];
  const progress = `${status.embedded}/${status.total} embedded, ${status.state}`;
  const lines = [`  search  hybrid with ${status.model}: ${progress}`];
  if (status.last_error) lines.push(`          last error: ${oneLine(status.last_error, 100)}`);
  return lines;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function parseBlock(spec: string): { label: string; value: string } {
  const equals = spec.indexOf("=");
  if (equals <= 0) throw new CliError(`--block takes label=value, not '${spec}'`);
  return { label: spec.slice(0, equals), value: spec.slice(equals + 1) };
}
