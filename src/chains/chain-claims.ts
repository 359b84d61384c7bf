/** What another process serving a run's API asks of the process that drives the run. */
export type ChainCommand = { op: "cancel" } | { op: "answered"; toolCallIds: string[] };

/** Told to the process that drives runs: commands for them, and the loss of every claim. */
export interface ClaimListener {
  command(runId: string, command: ChainCommand): void;
  /** Every claim is gone (the connection that held them failed): stop driving them. */
  lost(): void;
}

/**
 * Which process drives each chain run. One process alone (the embedded engine) drives every
 * run; on the scale-out engine any number of API processes share the runs, each run driven by
 * one of them at a time, and a run whose process died is taken up by another.
 */
export interface ChainClaims {
  /** Whether this process may drive the run: it already does, or no other process does. */
  claim(runId: string): Promise<boolean>;
  /** Gives the run up (it ended, or this process stops). */
  release(runId: string): Promise<void>;
  /** Sends `command` to the process that drives the run; lost if none does. */
  tell(runId: string, command: ChainCommand): Promise<void>;
  listen(listener: ClaimListener): void;
  /** How often to look for runs nobody drives (their process died); null when none can be. */
  readonly sweepMs: number | null;
  close(): Promise<void>;
}

/** The embedded engine: this process is the only one, so every run is its own. */
export const soleProcess: ChainClaims = {
  claim: async () => true,
  release: async () => {},
  tell: async () => {},
  listen: () => {},
  sweepMs: null,
  close: async () => {},
};
