import { get } from "../api.js";
import { ErrorLine, useLoad } from "../load.js";

interface Capabilities {
  model: string | null;
  control_flow: string;
  reply_via: string;
  access: string;
  policy_profile: string;
  heartbeats: boolean;
  offered: { name: string; risk: string; approval: string }[];
  withheld: { name: string; reason: string }[];
  memory: { depth: string; core_memory: boolean; archival: boolean; conversation_search: boolean };
  limits: Record<string, unknown>;
  isolation: { read_only: boolean; network: boolean; workspace_root: string | null };
}

interface AgentTypeView {
  name: string;
  description?: string;
  extends?: string;
  capabilities: Capabilities;
}

/** Every agent type with its effective capabilities: what its agents are offered and may do. */
export function TypesView() {
  const types = useLoad(() => get<AgentTypeView[]>("/v1/agent-types"), []);
  return (
    <section>
      <h1>Agent types</h1>
      <ErrorLine error={types.error} />
      <div class="grid" data-testid="types">
        {(types.data ?? []).map((type) => (
          <TypeCard key={type.name} type={type} />
        ))}
      </div>
    </section>
  );
}

function TypeCard({ type }: { type: AgentTypeView }) {
  const c = type.capabilities;
  const memory = Object.entries(c.memory)
    .filter(([, on]) => on === true)
    .map(([key]) => key.replace(/_/g, " "));
  return (
    <div class="card" data-type={type.name}>
      <h3>
        {type.name} {type.extends && <span class="muted small">extends {type.extends}</span>}
      </h3>
      {type.description && <p class="small">{type.description}</p>}
      <div class="facts small">
        <span>model {c.model ?? "default"}</span>
        <span>{c.control_flow}</span>
        <span>replies via {c.reply_via}</span>
        <span>access {c.access}</span>
        <span>policy {c.policy_profile}</span>
        <span>memory {c.memory.depth}</span>
        {c.isolation.read_only && <span>read-only</span>}
        {c.heartbeats && <span>heartbeats</span>}
      </div>
      <table class="list small">
        <tbody>
          {c.offered.map((tool) => (
            <tr key={tool.name}>
              <td>
                <code>{tool.name}</code>
              </td>
              <td>{tool.risk}</td>
              <td>approval {tool.approval}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {c.offered.length === 0 && <p class="muted small">no tools</p>}
      {memory.length > 0 && <p class="muted small">{memory.join(", ")}</p>}
      {c.withheld.length > 0 && (
        <details class="small">
          <summary>{c.withheld.length} withheld</summary>
          {c.withheld.map((w) => (
            <div key={w.name}>
              <code>{w.name}</code>: {w.reason}
            </div>
          ))}
        </details>
      )}
    </div>
  );
}
