import { useState } from "preact/hooks";
import { del, get, post } from "../api.js";
import { ErrorLine, useAction, useLoad } from "../load.js";
import { go } from "../route.js";
import type { Agent } from "../types.js";

const PAGE = 50;

/** Agents: a page at a time (cursor paging, so 10,000 agents cost one page), search, create, delete. */
export function AgentsView() {
  const [query, setQuery] = useState("");
  const [search, setSearch] = useState("");
  // The cursors of the pages before this one, so "Previous" goes back exactly.
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const params = new URLSearchParams({ limit: String(PAGE + 1), order: "asc" });
  if (after) params.set("after", after);
  if (search) params.set("query_text", search);
  const page = useLoad(() => get<Agent[]>(`/v1/agents/?${params}`), [after, search]);
  const agents = (page.data ?? []).slice(0, PAGE);
  const hasMore = (page.data?.length ?? 0) > PAGE;
  return (
    <section>
      <h1>Agents</h1>
      <CreateAgent />
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([]);
          setSearch(query.trim());
        }}
      >
        <input
          name="search"
          placeholder="Search by name"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      <ErrorLine error={page.error} />
      <table class="list" data-testid="agents">
        <thead>
          <tr>
            <th>name</th>
            <th>type</th>
            <th>model</th>
            <th>created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => (
            <AgentRow key={agent.id} agent={agent} onDeleted={page.reload} />
          ))}
        </tbody>
      </table>
      {page.data && agents.length === 0 && <p class="muted">No agents{search && " match"}.</p>}
      <div class="row">
        <button
          type="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous
        </button>
        <button
          type="button"
          disabled={!hasMore}
          onClick={() => {
            const last = agents.at(-1);
            if (last) setCursors([...cursors, last.id]);
          }}
        >
          Next
        </button>
        <span class="muted">page {cursors.length + 1}</span>
      </div>
    </section>
  );
}

function AgentRow({ agent, onDeleted }: { agent: Agent; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  return (
    <tr>
      <td>
        <a href={`#/agents/${agent.id}/chat`}>{agent.name}</a>
      </td>
      <td>{agent.agent_type}</td>
      <td>{agent.model}</td>
      <td class="muted">{agent.created_at.slice(0, 19).replace("T", " ")}</td>
      <td>
        {confirming ? (
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={() =>
              action.run(() => del(`/v1/agents/${agent.id}`)).then((ok) => ok && onDeleted())
            }
          >
            Confirm delete
          </button>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
        <ErrorLine error={action.error} />
      </td>
    </tr>
  );
}

function CreateAgent() {
  const types = useLoad(() => get<{ name: string; description?: string }[]>("/v1/agent-types"), []);
  const [name, setName] = useState("");
  const [type, setType] = useState("");
  const action = useAction();
  const chosen = type || types.data?.[0]?.name || "";
  return (
    <form
      class="row card"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const agent = await post<Agent>("/v1/agents/", {
            agent_type: chosen,
            ...(name.trim() ? { name: name.trim() } : {}),
          });
          go(`agents/${agent.id}/chat`);
        });
      }}
    >
      <strong>New agent</strong>
      <input
        name="name"
        placeholder="name (optional)"
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <select name="agent_type" value={chosen} onChange={(e) => setType(e.currentTarget.value)}>
        {(types.data ?? []).map((t) => (
          <option key={t.name} value={t.name}>
            {t.name}
          </option>
        ))}
      </select>
      <button type="submit" disabled={action.busy || !chosen}>
        Create
      </button>
      <ErrorLine error={action.error ?? types.error} />
    </form>
  );
}
