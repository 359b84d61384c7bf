import { performance } from "node:perf_hooks";
import { SPAWN_TOOL } from "../../agent/decide.js";
import { assert } from "../../core/errors.js";
import type { ModelRequest } from "../../llm/model.js";
import type { SimScript } from "../../llm/sim/sim-model.js";

/** The agent type the parent spawns, and the prefix of every child's task. */
export const CHILD_TYPE = "qa_assistant";
const TASK_PREFIX = "part ";

/** What one fan-out turn looked like from inside the model. */
export interface FanOutRound {
  /** From the parent's response carrying the spawn calls to the last child's first model call. */
  spawnToAllRunningMs: number;
  /** From that response to the first child's first model call. */
  spawnToFirstRunningMs: number;
}

/**
 * The sim model's script for the fan-out scenario, which also times it: every request passes
 * through here, so the parent's spawn response and each child's first call are stamped where
 * they happen. The parent is the one offered `spawn_agent`; a child is told its part in its
 * first user message (plain agents of the same type get other messages and are not counted).
 * Every model answers at once.
 */
export function fanOutProbe(width: number): {
  script: SimScript;
  /** The figures of the fan-out turn that just ended; asserts it went as scripted. */
  endRound(): FanOutRound;
} {
  let spawnedAt = Number.NaN;
  let started = new Map<string, number>();
  let resultsSeen = -1;

  const parent = (request: ModelRequest) => {
    if (request.messages.at(-1)?.role === "user") {
      spawnedAt = performance.now();
      started = new Map();
      resultsSeen = -1;
      const call = (i: number) => ({
        name: SPAWN_TOOL,
        args: { agent_type: CHILD_TYPE, prompt: `${TASK_PREFIX}${i}` },
      });
      return { toolCalls: Array.from({ length: width }, (_, i) => call(i)) };
    }
    resultsSeen = request.messages.filter(
      (m) => m.role === "tool" && m.toolName === SPAWN_TOOL,
    ).length;
    return { text: "all parts done" };
  };

  const script: SimScript = (request) => {
    if (request.tools.some((tool) => tool.name === SPAWN_TOOL)) return parent(request);
    const task = request.messages.find((m) => m.role === "user")?.content ?? "";
    if (task.startsWith(TASK_PREFIX) && !started.has(task)) started.set(task, performance.now());
    return { text: "part done" };
  };

  return {
    script,
    endRound() {
      assert(started.size === width, `${started.size} of ${width} children ran`);
      assert(resultsSeen === width, `the parent saw ${resultsSeen} of ${width} child results`);
      const times = [...started.values()];
      return {
        spawnToAllRunningMs: Math.max(...times) - spawnedAt,
        spawnToFirstRunningMs: Math.min(...times) - spawnedAt,
      };
    },
  };
}
