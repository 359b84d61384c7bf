import type { Command } from "commander";
import { z } from "zod";
import {
  type ClientOptions,
  createClient,
  resolveAgentId,
  runOrExit,
  segment,
  withServerOptions,
} from "./http-client.js";

export interface ChildNode {
  id: string;
  name: string;
  agent_type: string;
  status: string;
  task_run: { id: string; status: string; stop_reason: string | null } | null;
  children: ChildNode[];
}

const ChildNode: z.ZodType<ChildNode> = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    agent_type: z.string(),
    status: z.string(),
    task_run: z
      .looseObject({ id: z.string(), status: z.string(), stop_reason: z.string().nullable() })
      .nullable(),
    children: z.array(ChildNode),
  }),
);

/** `holdfast agents tree ID`: the agent and the sub-agents below it, with their status. */
export function registerTreeCommand(agents: Command): void {
  withServerOptions(
    agents.command("tree").description("show the sub-agents an agent spawned, with their status"),
  )
    .argument("<id-or-name>", "the agent")
    .option("--json", "print JSON")
    .action((idOrName: string, options: ClientOptions & { json?: boolean }) =>
      runOrExit(async () => {
        const client = createClient(options);
        const id = await resolveAgentId(client, idOrName);
        const raw = await client.request<unknown>("GET", `/v1/agents/${segment(id)}/children`);
        const tree = z.array(ChildNode).parse(raw);
        if (options.json) return console.log(JSON.stringify(tree, null, 2));
        console.log([id, ...formatTree(tree, "")].join("\n"));
      }),
    );
}

/** Lines of a tree drawn with box characters: name, type, status, and how its task ended. */
export function formatTree(nodes: readonly ChildNode[], indent: string): string[] {
  return nodes.flatMap((node, i) => {
    const last = i === nodes.length - 1;
    const task = node.task_run
      ? `task ${node.task_run.status}${node.task_run.stop_reason ? ` (${node.task_run.stop_reason})` : ""}`
      : "task not started";
    const line = `${indent}${last ? "└─" : "├─"} ${node.name} [${node.agent_type}] ${node.status}, ${task}  ${node.id}`;
    return [line, ...formatTree(node.children, `${indent}${last ? "   " : "│  "}`)];
  });
}
