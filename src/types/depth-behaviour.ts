import type { EffectiveCapabilities } from "./capabilities-schema.js";

/** What an agent's memory depth does, in a sentence a user reads in `holdfast types show`. */
export function depthBehaviour(memory: EffectiveCapabilities["memory"]): string {
  const idle =
    memory.session_idle_minutes === null
      ? "a session ends when the client ends it"
      : `a session ends when the client ends it or after ${memory.session_idle_minutes} idle minutes`;
  switch (memory.depth) {
    case "stateless":
      return "nothing from earlier turns is in context, and there is no core memory";
    case "session":
      return `only the current session's history is in context (${idle}); earlier sessions stay stored`;
    case "persistent":
      return "all history is in context; the oldest is summarised once it outgrows the context window";
    case "learning":
      return (
        `as persistent, and before each turn up to ${memory.recall_tokens} tokens of the most ` +
        `relevant archival passages and past messages are recalled into context; when a ` +
        `session ends (${idle}) the agent writes what it learned to archival memory`
      );
  }
}
