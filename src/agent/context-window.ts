import type { ModelMessage } from "../llm/model.js";

/**
 * A conservative token estimate: about 3.5 characters a token, plus a little per message.
 * Providers count differently; erring high keeps requests inside the window.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5) + 4;
}

export function messageTokens(message: ModelMessage): number {
  switch (message.role) {
    case "user":
      return estimateTokens(message.content);
    case "assistant":
      return (
        estimateTokens(message.content) +
        message.toolCalls.reduce((sum, call) => sum + estimateTokens(call.name + call.arguments), 0)
      );
    case "tool":
      return estimateTokens(message.content);
  }
}

export interface FittedHistory {
  messages: ModelMessage[];
  /** How many of the oldest messages were left out of the request (not deleted). */
  evicted: number;
}

/**
 * Keeps the newest messages that fit in `budgetTokens`, leaving out the oldest. The window never
 * starts with a tool result whose call was left out, and a notice tells the model that older
 * messages exist and can be searched. Nothing is removed from the stored history.
 */
export function fitHistory(messages: readonly ModelMessage[], budgetTokens: number): FittedHistory {
  let used = 0;
  let start = messages.length;
  while (start > 0) {
    const cost = messageTokens(messages[start - 1] as ModelMessage);
    if (used + cost > budgetTokens) break;
    used += cost;
    start -= 1;
  }
  while (start < messages.length && messages[start]?.role === "tool") start += 1;
  if (start === 0) return { messages: [...messages], evicted: 0 };
  const notice: ModelMessage = {
    role: "user",
    content: `[system] ${start} earlier messages are outside the context window. They are kept; use conversation_search to find them if it is offered.`,
  };
  return { messages: [notice, ...messages.slice(start)], evicted: start };
}
