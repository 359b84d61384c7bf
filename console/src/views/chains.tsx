import { useEffect, useState } from "preact/hooks";
import { get, post, stream } from "../api.js";
import { ErrorLine, useAction, useLoad } from "../load.js";
import { go } from "../route.js";
import type { ToolCall } from "../types.js";

interface Chain {
  name: string;
  description: string;
  stages: { name: string; description: string }[];
}

interface ChainAgent {
  name: string;
  role: string;
  agent_id: string;
  agent_type: string;
  status: string;
  run_id: string | null;
  stop_reason: string | null;
  output: string | null;
  error: string | null;
}

interface ChainRun {
  id: string;
  chain: string;
  input: string;
  status: string;
  stages: {
    name: string;
    status: string;
    agents: ChainAgent[];
    output: string | null;
    error: string | null;
  }[];
  pending_approvals: { stage: string; agent_id: string; agent_name: string; tool_call: ToolCall }[];
  score: { value: number | null; min_score: number | null; passed: boolean } | null;
  error: { stage: string | null; message: string } | null;
  created_at_ms: number;
}

const FINISHED = new Set(["completed", "failed", "cancelled"]);

/** The configured chains (start a run of one) and the latest chain runs. */
export function ChainsView() {
  const chains = useLoad(() => get<Chain[]>("/v1/chains"), []);
  const runs = useLoad(() => get<ChainRun[]>("/v1/chain-runs?limit=50"), []);
  return (
    <section>
      <h1>Chains</h1>
      <ErrorLine error={chains.error ?? runs.error} />
      {chains.data?.length === 0 && (
        <p class="muted">No chains are configured (`chains:` in holdfast.yaml).</p>
      )}
      {(chains.data ?? []).map((chain) => (
        <StartChain key={chain.name} chain={chain} />
      ))}
      <h2>Runs</h2>
      <table class="list">
        <tbody>
          {(runs.data ?? []).map((run) => (
            <tr key={run.id}>
              <td>
                <a href={`#/chain-runs/${run.id}`}>{run.id}</a>
              </td>
              <td>{run.chain}</td>
              <td>{run.status}</td>
              <td class="muted">{new Date(run.created_at_ms).toISOString().slice(0, 19)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.data?.length === 0 && <p class="muted">No chain runs yet.</p>}
    </section>
  );
}

function StartChain({ chain }: { chain: Chain }) {
  const [input, setInput] = useState("");
  const action = useAction();
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const run = await post<ChainRun>(`/v1/chains/${chain.name}/runs`, {
            input,
            background: true,
          });
          go(`chain-runs/${run.id}`);
        });
      }}
    >
      <strong>{chain.name}</strong>{" "}
      <span class="muted small">{chain.stages.map((s) => s.name).join(" → ")}</span>
      {chain.description && <p class="small">{chain.description}</p>}
      <div class="row">
        <input placeholder="input" value={input} onInput={(e) => setInput(e.currentTarget.value)} />
        <button type="submit" disabled={action.busy}>
          Run
        </button>
      </div>
      <ErrorLine error={action.error} />
    </form>
  );
}

/** A chain run's stages and agents, live: every frame of its stream re-reads the run. */
export function ChainRunView({ id }: { id: string }) {
  const run = useLoad(() => get<ChainRun>(`/v1/chain-runs/${id}`), [id]);
  const [live, setLive] = useState(false);
  const action = useAction();
  const reload = run.reload;
  useEffect(() => {
    const stop = new AbortController();
    let queued = false;
    setLive(true);
    stream(
      "GET",
      `/v1/chain-runs/${id}/stream`,
      undefined,
      (frame) => {
        // Token frames are many; the run's own frames say when its shape changed.
        if (String(frame.message_type).startsWith("chain_") && !queued) {
          queued = true;
          setTimeout(() => {
            queued = false;
            reload();
          }, 100);
        }
      },
      stop.signal,
    )
      .catch(() => undefined)
      .finally(() => {
        setLive(false);
        reload();
      });
    return () => stop.abort();
  }, [id, reload]);
  const data = run.data;
  return (
    <section>
      <p>
        <a href="#/chains">← chains</a>
      </p>
      <ErrorLine error={run.error ?? action.error} />
      {data && (
        <>
          <h1>
            {data.chain} <span class="muted small">{data.id}</span>
          </h1>
          <div class="facts">
            <span>{data.status}</span>
            {live && !FINISHED.has(data.status) && <span>live</span>}
            {data.score && (
              <span>
                score {data.score.value ?? "none"} (min {data.score.min_score ?? "-"})
              </span>
            )}
            {data.error && <span class="error">{data.error.message}</span>}
          </div>
          <p class="small">input: {data.input}</p>
          {data.pending_approvals.map((p) => (
            <div class="card approvals row" key={p.tool_call.tool_call_id}>
              <span>
                {p.stage}/{p.agent_name} asks:{" "}
                <code>
                  {p.tool_call.name}({p.tool_call.arguments})
                </code>
              </span>
              {[true, false].map((approve) => (
                <button
                  key={String(approve)}
                  type="button"
                  onClick={() =>
                    void action
                      .run(() =>
                        post(`/v1/chain-runs/${id}/approvals`, {
                          approvals: [{ tool_call_id: p.tool_call.tool_call_id, approve }],
                        }),
                      )
                      .then(reload)
                  }
                >
                  {approve ? "Approve" : "Deny"}
                </button>
              ))}
            </div>
          ))}
          <div class="stages">
            {data.stages.map((stage) => (
              <div class="card" key={stage.name} data-stage={stage.name}>
                <strong>{stage.name}</strong> <span class="muted">{stage.status}</span>
                {stage.agents.map((agent) => (
                  <div key={agent.name} class="small">
                    <a
                      href={`#/agents/${agent.agent_id}/${agent.run_id ? `runs/${agent.run_id}` : "chat"}`}
                    >
                      {agent.name}
                    </a>{" "}
                    [{agent.role}] {agent.status}
                    {agent.stop_reason && ` (${agent.stop_reason})`}
                    {agent.error && <span class="error"> {agent.error}</span>}
                  </div>
                ))}
                {stage.output && <pre class="small">{stage.output}</pre>}
              </div>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
