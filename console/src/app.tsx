import { useEffect, useState } from "preact/hooks";
import { onUnauthorized, setToken } from "./api.js";
import { useRoute } from "./route.js";
import { AgentPage } from "./views/agent-page.js";
import { AgentsView } from "./views/agents.js";
import { ChainRunView, ChainsView } from "./views/chains.js";
import { TypesView } from "./views/types.js";

/** The shell: navigation, the token prompt, and the view the hash names. */
export function App() {
  const route = useRoute();
  const [askToken, setAskToken] = useState(false);
  const [generation, setGeneration] = useState(0);
  useEffect(() => onUnauthorized(() => setAskToken(true)), []);
  const section = route[0] ?? "agents";
  return (
    <div class="shell">
      <nav class="top">
        <strong>Holdfast</strong>
        <a href="#/agents" class={section === "agents" ? "on" : ""}>
          Agents
        </a>
        <a href="#/types" class={section === "types" ? "on" : ""}>
          Agent types
        </a>
        <a href="#/chains" class={section.startsWith("chain") ? "on" : ""}>
          Chains
        </a>
        <span class="grow" />
        <button type="button" class="link" onClick={() => setAskToken(true)}>
          Token
        </button>
        <a href="/docs">API docs</a>
      </nav>
      {askToken && (
        <TokenPrompt
          onDone={() => {
            setAskToken(false);
            setGeneration((g) => g + 1);
          }}
        />
      )}
      <main key={generation}>{view(route)}</main>
    </div>
  );
}

function view(route: string[]) {
  const [section, id, tab, sub] = route;
  if (section === "agents" && id) return <AgentPage id={id} tab={tab ?? "chat"} sub={sub} />;
  if (section === "types") return <TypesView />;
  if (section === "chains") return <ChainsView />;
  if (section === "chain-runs" && id) return <ChainRunView id={id} />;
  return <AgentsView />;
}

function TokenPrompt({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState("");
  return (
    <form
      class="token card"
      onSubmit={(event) => {
        event.preventDefault();
        setToken(value.trim());
        onDone();
      }}
    >
      <label>
        This server asks for a bearer token (HOLDFAST_TOKENS). It is kept for this tab only.
        <input
          name="token"
          type="password"
          autocomplete="off"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Use token</button>
    </form>
  );
}
