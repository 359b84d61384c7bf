import { useEffect, useRef, useState } from "preact/hooks";
import { get, post, stream } from "../api.js";
import { ErrorLine } from "../load.js";
import { go } from "../route.js";
import type { Agent, Message, ToolCall } from "../types.js";
import { callsOf, mergeFrame } from "./chat-state.js";
import { MessageView } from "./message-view.js";

const PAGE = 100;
/** A fork may end after a message that splits no tool call from its return. */
const FORKABLE = new Set(["user_message", "assistant_message"]);

/**
 * The chat: the history a page at a time (only the loaded pages are rendered, so a 5,000-message
 * history costs one page until asked for more), live streaming of each turn, and the approvals
 * the agent waits for.
 */
export function ChatView({ agentId }: { agentId: string }) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [hasOlder, setHasOlder] = useState(false);
  const [pending, setPending] = useState<ToolCall[]>([]);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const list = useRef<HTMLDivElement>(null);
  const follow = useRef(true);

  useEffect(() => {
    setMessages([]);
    get<Message[]>(`/v1/agents/${agentId}/messages?limit=${PAGE}`).then((page) => {
      setMessages(page);
      setHasOlder(page.length === PAGE);
    }, fail);
    get<Agent>(`/v1/agents/${agentId}?include=agent.pending_approval`).then((agent) => {
      setPending(agent.pending_approval ? callsOf(agent.pending_approval) : []);
    }, fail);
  }, [agentId]);

  useEffect(() => {
    const el = list.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [messages]);

  function fail(e: unknown) {
    setError(e instanceof Error ? e.message : String(e));
  }

  async function older() {
    const first = messages[0];
    if (!first) return;
    follow.current = false;
    const page = await get<Message[]>(
      `/v1/agents/${agentId}/messages?limit=${PAGE}&before=${first.id}`,
    ).catch(fail);
    if (!page) return;
    setMessages((now) => [...page, ...now]);
    setHasOlder(page.length === PAGE);
  }

  async function send(input: Record<string, unknown>) {
    setBusy(true);
    setError(null);
    setStatus("running…");
    follow.current = true;
    try {
      await stream(
        "POST",
        `/v1/agents/${agentId}/messages/stream`,
        {
          ...input,
          stream_tokens: true,
        },
        (data, event) => {
          const frame = data as unknown as Message;
          if (event === "error") return fail(new Error(errorOf(data)));
          if (frame.message_type === "stop_reason") setStatus(`stopped: ${frame.stop_reason}`);
          else if (frame.message_type === "usage_statistics")
            setStatus((s) => `${s} · ${frame.prompt_tokens} in / ${frame.completion_tokens} out`);
          else if (frame.message_type === "ping" || !frame.id) return;
          else {
            setMessages((now) => mergeFrame(now, frame));
            if (frame.message_type === "approval_request_message")
              setPending((now) => [
                ...now,
                ...callsOf(frame).filter(
                  (c) => !now.some((p) => p.tool_call_id === c.tool_call_id),
                ),
              ]);
          }
        },
      );
    } catch (e) {
      fail(e);
    } finally {
      setBusy(false);
    }
  }

  /** Forks the agent after this message and opens the fork. */
  async function fork(message: Message) {
    const forked = await post<Agent>(`/v1/agents/${agentId}/fork`, {
      message_id: message.id,
    }).catch(fail);
    if (forked) go(`agents/${forked.id}/chat`);
  }

  function say(text: string) {
    const local: Message = {
      id: `local-${Date.now()}`,
      message_type: "user_message",
      content: text,
    };
    setMessages((now) => [...now, local]);
    void send({ messages: [{ role: "user", content: text }] });
  }

  function answer(call: ToolCall, approve: boolean) {
    setPending((now) => now.filter((p) => p.tool_call_id !== call.tool_call_id));
    void send({
      messages: [
        {
          type: "approval",
          approvals: [{ type: "approval", tool_call_id: call.tool_call_id, approve }],
        },
      ],
    });
  }

  return (
    <div class="chat">
      <div
        class="messages"
        ref={list}
        data-testid="messages"
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        {hasOlder && (
          <button type="button" class="link" onClick={() => void older()}>
            Load older messages
          </button>
        )}
        {messages.map((m) =>
          FORKABLE.has(m.message_type) && !m.id.startsWith("local-") ? (
            <div class="forkable" key={`${m.id}:${m.message_type}`} data-message={m.id}>
              <MessageView message={m} />
              <button
                type="button"
                class="link small"
                title="A new agent with the history and memory as of this message"
                onClick={() => void fork(m)}
              >
                Fork here
              </button>
            </div>
          ) : (
            <MessageView key={`${m.id}:${m.message_type}`} message={m} />
          ),
        )}
      </div>
      {pending.length > 0 && (
        <div class="card approvals" data-testid="approvals">
          <strong>Waiting for your approval</strong>
          {pending.map((call) => (
            <div class="row" key={call.tool_call_id}>
              <code>
                {call.name}({call.arguments})
              </code>
              <button type="button" disabled={busy} onClick={() => answer(call, true)}>
                Approve
              </button>
              <button
                type="button"
                class="danger"
                disabled={busy}
                onClick={() => answer(call, false)}
              >
                Deny
              </button>
            </div>
          ))}
        </div>
      )}
      <ErrorLine error={error} />
      <form
        class="row compose"
        onSubmit={(e) => {
          e.preventDefault();
          if (!draft.trim()) return;
          say(draft.trim());
          setDraft("");
        }}
      >
        <input
          name="message"
          placeholder={pending.length ? "Answer the approval first" : "Message the agent"}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy || pending.length > 0}>
          Send
        </button>
        {busy && (
          <button
            type="button"
            onClick={() => void post(`/v1/agents/${agentId}/messages/cancel`, {}).catch(fail)}
          >
            Cancel
          </button>
        )}
        <span class="muted" data-testid="status">
          {status}
        </span>
      </form>
    </div>
  );
}

/** The message of an SSE `error` frame (Letta's `{error: {message}}`, or a bare `{message}`). */
function errorOf(data: Record<string, unknown>): string {
  const nested = data.error as { message?: string } | undefined;
  return (
    nested?.message ?? (typeof data.message === "string" ? data.message : JSON.stringify(data))
  );
}
