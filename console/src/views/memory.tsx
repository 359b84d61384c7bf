import { useState } from "preact/hooks";
import { del, get, patch, post } from "../api.js";
import { ErrorLine, useAction, useLoad } from "../load.js";
import type { Block, Passage } from "../types.js";

/** Core memory blocks (view, edit) and archival passages (search, add, delete). */
export function MemoryView({ agentId }: { agentId: string }) {
  const blocks = useLoad(() => get<Block[]>(`/v1/agents/${agentId}/core-memory/blocks`), [agentId]);
  return (
    <div class="columns">
      <div>
        <h2>
          Core memory{" "}
          <button type="button" class="link" onClick={blocks.reload}>
            reload
          </button>
        </h2>
        <ErrorLine error={blocks.error} />
        {(blocks.data ?? []).map((block) => (
          <BlockEditor key={`${block.id}:${block.value}`} agentId={agentId} block={block} />
        ))}
      </div>
      <Archival agentId={agentId} />
    </div>
  );
}

function BlockEditor({ agentId, block }: { agentId: string; block: Block }) {
  const [value, setValue] = useState(block.value);
  const action = useAction();
  const [saved, setSaved] = useState(false);
  return (
    <form
      class="card block"
      data-label={block.label}
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        void action
          .run(() =>
            patch(`/v1/agents/${agentId}/core-memory/blocks/${encodeURIComponent(block.label)}`, {
              value,
            }),
          )
          .then(setSaved);
      }}
    >
      <div class="row">
        <strong>{block.label}</strong>
        <span class="muted small">
          {value.length} / {block.limit} characters
        </span>
      </div>
      {block.description && <p class="muted small">{block.description}</p>}
      <textarea
        name={block.label}
        rows={4}
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <div class="row">
        <button type="submit" disabled={action.busy || value === block.value}>
          Save
        </button>
        {saved && <span class="muted">saved</span>}
      </div>
      <ErrorLine error={action.error} />
    </form>
  );
}

function Archival({ agentId }: { agentId: string }) {
  const base = `/v1/agents/${agentId}/archival-memory`;
  const [query, setQuery] = useState("");
  const [search, setSearch] = useState("");
  const [text, setText] = useState("");
  const params = new URLSearchParams({ limit: "100", ascending: "false" });
  if (search) params.set("search", search);
  const passages = useLoad(() => get<Passage[]>(`${base}?${params}`), [agentId, search]);
  const action = useAction();
  return (
    <div>
      <h2>Archival memory</h2>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(query.trim());
        }}
      >
        <input
          name="archival-search"
          placeholder="Search passages"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (!text.trim()) return;
          void action
            .run(() => post(base, { text: text.trim() }))
            .then((ok) => {
              if (!ok) return;
              setText("");
              passages.reload();
            });
        }}
      >
        <input
          name="passage"
          placeholder="Add a passage"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Add
        </button>
      </form>
      <ErrorLine error={action.error ?? passages.error} />
      <ul class="passages" data-testid="passages">
        {(passages.data ?? []).map((p) => (
          <li key={p.id} class="card">
            <span>{p.text}</span>
            <button
              type="button"
              class="link danger"
              onClick={() =>
                void action.run(() => del(`${base}/${p.id}`)).then((ok) => ok && passages.reload())
              }
            >
              delete
            </button>
          </li>
        ))}
      </ul>
      {passages.data?.length === 0 && <p class="muted">No passages{search && " match"}.</p>}
    </div>
  );
}
