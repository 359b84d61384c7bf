import { useEffect } from "preact/hooks";
import { get } from "../api.js";
import { ErrorLine, useLoad } from "../load.js";
import type { ChildNode } from "../types.js";

/** How often the open tree asks again, so spawns and finished tasks show without a click. */
const REFRESH_MS = 1500;

/** The sub-agents this agent spawned, as a live tree with each one's status and task. */
export function TreeView({ agentId }: { agentId: string }) {
  const tree = useLoad(() => get<ChildNode[]>(`/v1/agents/${agentId}/children`), [agentId]);
  const { reload } = tree;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  return (
    <div data-testid="tree">
      <button type="button" class="link" onClick={tree.reload}>
        reload
      </button>
      <ErrorLine error={tree.error} />
      {tree.data?.length === 0 && <p class="muted">This agent has spawned no sub-agents.</p>}
      <Nodes nodes={tree.data ?? []} />
    </div>
  );
}

function Nodes({ nodes }: { nodes: ChildNode[] }) {
  if (nodes.length === 0) return null;
  return (
    <ul class="tree">
      {nodes.map((node) => (
        <li key={node.id} data-child={node.name}>
          <a href={`#/agents/${node.id}/chat`}>{node.name}</a>{" "}
          <span class="muted">[{node.agent_type}]</span> {node.status}
          {node.task_run && (
            <>
              , task{" "}
              <a href={`#/agents/${node.id}/runs/${node.task_run.id}`}>{node.task_run.status}</a>
              {node.task_run.stop_reason && ` (${node.task_run.stop_reason})`}
            </>
          )}
          <Nodes nodes={node.children} />
        </li>
      ))}
    </ul>
  );
}
