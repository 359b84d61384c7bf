import { get } from "../api.js";
import { ErrorLine, useLoad } from "../load.js";
import type { Agent } from "../types.js";
import { ChatView } from "./chat.js";
import { MemoryView } from "./memory.js";
import { RunsView, RunTimeline } from "./runs.js";
import { TreeView } from "./tree.js";

const TABS = [
  ["chat", "Chat"],
  ["memory", "Memory"],
  ["runs", "Runs"],
  ["tree", "Sub-agents"],
] as const;

/** One agent: its chat, memory, runs and sub-agents, a tab each. */
export function AgentPage({ id, tab, sub }: { id: string; tab: string; sub: string | undefined }) {
  const agent = useLoad(() => get<Agent>(`/v1/agents/${id}`), [id]);
  return (
    <section>
      <h1>
        {agent.data?.name ?? id}{" "}
        <span class="muted small">
          {agent.data?.agent_type} · {agent.data?.model} · {id}
        </span>
      </h1>
      <ErrorLine error={agent.error} />
      <nav class="tabs">
        {TABS.map(([key, label]) => (
          <a key={key} href={`#/agents/${id}/${key}`} class={tab === key ? "on" : ""}>
            {label}
          </a>
        ))}
      </nav>
      {tab === "chat" && <ChatView agentId={id} />}
      {tab === "memory" && <MemoryView agentId={id} />}
      {tab === "runs" && !sub && <RunsView agentId={id} />}
      {tab === "runs" && sub && <RunTimeline agentId={id} runId={sub} />}
      {tab === "tree" && <TreeView agentId={id} />}
    </section>
  );
}
