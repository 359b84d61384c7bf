import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import {
  type ApprovalAnswer,
  CliError,
  type ClientOptions,
  createClient,
  type HttpClient,
  resolveAgentId,
  runOrExit,
  type StreamChunk,
  segment,
  withServerOptions,
} from "./http-client.js";

export function registerChatCommand(program: Command): void {
  withServerOptions(
    program
      .command("chat")
      .description("chat with an agent of a running server; /exit or Ctrl-D quits")
      .argument("<agent>", "the agent's id or name"),
  ).action((idOrName: string, options: ClientOptions) => runOrExit(() => chat(idOrName, options)));
}

interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
  yellow(text: string): string;
}

function makeStyle(colour: boolean): Style {
  const paint = (code: number) => (text: string) =>
    colour && text ? `\x1b[${code}m${text}\x1b[0m` : text;
  return { dim: paint(2), bold: paint(1), red: paint(31), cyan: paint(36), yellow: paint(33) };
}

interface ToolCall {
  name: string;
  arguments: string;
  tool_call_id: string;
}

interface Chat {
  client: HttpClient;
  agentId: string;
  style: Style;
  interactive: boolean;
  write(text: string): void;
  /** Reads one line, or null when the input has ended. */
  ask(prompt: string): Promise<string | null>;
  /** The running turn's controller: Ctrl-C aborts it. */
  current: AbortController | null;
}

async function chat(idOrName: string, options: ClientOptions): Promise<void> {
  const client = createClient(options);
  const agentId = await resolveAgentId(client, idOrName);
  const agent = await client.request<{ name?: string }>("GET", `/v1/agents/${segment(agentId)}`);
  const name = agent.name ?? agentId;
  const interactive = process.stdin.isTTY === true;
  const style = makeStyle(process.stdout.isTTY === true && !process.env.NO_COLOR);
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: interactive && process.stdout.isTTY === true,
  });
  // The iterator buffers lines, so piped input typed ahead of a turn is not lost.
  const lines = rl[Symbol.asyncIterator]();
  const write = (text: string) => void process.stdout.write(text);
  let closed = false;
  rl.on("close", () => {
    closed = true;
  });
  const session: Chat = {
    client,
    agentId,
    style,
    interactive,
    write,
    current: null,
    async ask(prompt) {
      // After the input ends the iterator still yields the lines it buffered.
      if (interactive && !closed) {
        rl.setPrompt(prompt);
        rl.prompt();
      }
      const next = await lines.next();
      if (next.done) return null;
      if (!interactive) write(`${prompt}${next.value}\n`);
      return next.value;
    },
  };
  rl.on("SIGINT", () => (session.current ? session.current.abort() : rl.close()));
  write(`${style.dim(`chatting with ${name} (${agentId}); /exit or Ctrl-D quits`)}\n`);
  try {
    for (;;) {
      const line = await session.ask(style.bold("you> "));
      if (line === null) break;
      const text = line.trim();
      if (text === "/exit" || text === "/quit") break;
      if (text === "") continue;
      await turn(session, name, (signal) => client.streamMessages(agentId, text, signal));
    }
  } finally {
    rl.close();
  }
}

/** Streams one turn, answering approvals inline until the agent stops asking. */
async function turn(
  session: Chat,
  agentName: string,
  first: (signal: AbortSignal) => AsyncGenerator<StreamChunk>,
): Promise<void> {
  let source = first;
  for (;;) {
    const render = renderer(session, agentName);
    const controller = new AbortController();
    session.current = controller;
    try {
      for await (const chunk of source(controller.signal)) render.chunk(chunk);
    } catch (error) {
      render.end();
      return reportFailure(session, error, controller.signal.aborted);
    } finally {
      session.current = null;
    }
    render.end();
    if (render.approvals.length === 0) return;
    const answers: ApprovalAnswer[] = [];
    for (const call of render.approvals) answers.push(await askApproval(session, call));
    source = (signal) => session.client.streamApprovals(session.agentId, answers, signal);
  }
}

async function reportFailure(session: Chat, error: unknown, aborted: boolean): Promise<void> {
  const { style, write, client, agentId } = session;
  if (aborted) {
    write(style.dim("(interrupted: cancelling the run)\n"));
    await client
      .request("POST", `/v1/agents/${segment(agentId)}/messages/cancel`, {})
      .catch(() => undefined);
    return;
  }
  if (!(error instanceof CliError)) throw error;
  write(`${style.red(`error: ${error.message}`)}\n`);
}

async function askApproval(session: Chat, call: ToolCall): Promise<ApprovalAnswer> {
  const { style, write, interactive } = session;
  const prompt = style.yellow(`  ? approve ${call.name}? [y/N] `);
  const answer = await session.ask(prompt);
  const id = call.tool_call_id;
  if (answer === null) {
    write(`${interactive ? "\n    " : prompt}${style.dim("(no answer: denied)")}\n`);
    return { tool_call_id: id, approve: false, reason: "the chat ended before an answer" };
  }
  const said = answer.trim();
  if (/^y(es)?$/i.test(said)) return { tool_call_id: id, approve: true };
  const reason = /^(n|no)?$/i.test(said) ? "denied by the user" : said;
  return { tool_call_id: id, approve: false, reason };
}

/**
 * Prints a turn's chunks as they arrive. Token deltas repeat their message's id: they are
 * written on one line, which ends when another message starts or the turn ends.
 */
function renderer(session: Chat, agentName: string) {
  const { style, write } = session;
  const width = Math.max(40, (process.stdout.columns ?? 100) - 4);
  const approvals: ToolCall[] = [];
  const shownCalls = new Set<string>();
  let open: { id: string | undefined; kind: string } | null = null;

  let atLineStart = true;
  const end = () => {
    if (open && !atLineStart) write("\n");
    open = null;
  };
  const stream = (
    chunk: StreamChunk,
    prefix: string,
    text: string,
    paint: (s: string) => string,
  ) => {
    if (
      !open ||
      open.id === undefined ||
      open.id !== chunk.id ||
      open.kind !== chunk.message_type
    ) {
      end();
      write(prefix);
      atLineStart = false;
      open = { id: chunk.id, kind: chunk.message_type };
    }
    write(paint(text));
    if (text) atLineStart = text.endsWith("\n");
  };
  const line = (text: string) => {
    end();
    write(`${text}\n`);
  };

  const chunk = (chunk: StreamChunk) => {
    switch (chunk.message_type) {
      case "reasoning_message":
        return stream(chunk, style.dim("  thinking: "), textOf(chunk.reasoning), style.dim);
      case "hidden_reasoning_message":
        return line(style.dim("  thinking (hidden)"));
      case "assistant_message":
        return stream(chunk, style.cyan(`${agentName}: `), textOf(chunk.content), (s) => s);
      case "tool_call_message": {
        const call = toolCallOf(chunk);
        if (!call) return;
        shownCalls.add(call.tool_call_id);
        return line(style.yellow(`  → ${formatCall(call, width)}`));
      }
      case "tool_return_message": {
        const failed = chunk.status === "error";
        const shown = clip(textOf(chunk.tool_return).trimEnd(), width, 2).join("\n    ");
        return line(failed ? style.red(`  ← error: ${shown}`) : style.dim(`  ← ${shown}`));
      }
      case "approval_request_message": {
        // The call was usually just shown as a tool call; the question follows the stream.
        const call = toolCallOf(chunk);
        if (!call) return;
        approvals.push(call);
        if (shownCalls.has(call.tool_call_id)) return;
        return line(style.yellow(`  → ${formatCall(call, width)}`));
      }
      case "stop_reason": {
        const reason = textOf(chunk.stop_reason);
        if (reason === "end_turn" || (reason === "requires_approval" && approvals.length > 0))
          return;
        return line(style.dim(`(stopped: ${reason})`));
      }
      case "error_message":
        return line(style.red(`error: ${textOf(chunk.message)}`));
    }
  };
  return { chunk, end, approvals };
}

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.map((part: { text?: unknown } | null) => textOf(part?.text ?? "")).join("");
  return value === undefined || value === null ? "" : JSON.stringify(value);
}

function toolCallOf(chunk: StreamChunk): ToolCall | undefined {
  const raw = chunk.tool_call ?? (Array.isArray(chunk.tool_calls) ? chunk.tool_calls[0] : null);
  if (typeof raw !== "object" || raw === null) return undefined;
  const call = raw as Partial<Record<keyof ToolCall, unknown>>;
  if (typeof call.name !== "string") return undefined;
  return {
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : "",
    tool_call_id: typeof call.tool_call_id === "string" ? call.tool_call_id : "",
  };
}

/** `name(key="value", …)` on one line. */
function formatCall(call: ToolCall, width: number): string {
  let args = call.arguments;
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      args = Object.entries(parsed)
        .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
        .join(", ");
  } catch {
    // Arguments that are not JSON are shown as the model wrote them.
  }
  return clip(`${call.name}(${args})`, width, 1)[0] ?? call.name;
}

/** At most `maxLines` lines of at most `width` characters, with … where text was cut. */
function clip(text: string, width: number, maxLines: number): string[] {
  const all = text.split("\n");
  const kept = all
    .slice(0, maxLines)
    .map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
  const last = kept.pop();
  if (last === undefined) return kept;
  const cut = all.length > maxLines && !last.endsWith("…");
  return [...kept, cut ? `${last} …` : last];
}
