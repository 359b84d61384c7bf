import type { LoopObserver } from "../agent/observer.js";

/**
 * One observer telling several (metrics and traces). An observer that throws is a bug in it,
 * never a reason to fail an agent's turn: the others are still told, and the error is dropped.
 */
export function allObservers(observers: readonly LoopObserver[]): LoopObserver | undefined {
  if (observers.length === 0) return undefined;
  if (observers.length === 1) return observers[0];
  const each =
    <K extends keyof LoopObserver>(method: K) =>
    (seen: Parameters<LoopObserver[K]>[0]) => {
      for (const observer of observers) {
        try {
          (observer[method] as (arg: typeof seen) => void)(seen);
        } catch {
          // See above: observation never breaks a turn.
        }
      }
    };
  return {
    turnStarted: each("turnStarted"),
    modelCalled: each("modelCalled"),
    toolCalled: each("toolCalled"),
    committed: each("committed"),
    turnEnded: each("turnEnded"),
  };
}
