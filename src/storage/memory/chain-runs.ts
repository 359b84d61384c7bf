import { ChainRunRecord, FINISHED_CHAIN_STATUSES } from "../../records/chain-run.js";
import type { ChainRunFilter, PageQuery } from "../store.js";
import { parseInput } from "../store-rows.js";
import { copy, pageOf } from "./rows.js";

/** The in-memory store's chain runs. */
export class InMemoryChainRuns {
  /** In creation order (a Map keeps a key's place when it is set again). */
  private readonly chainRuns = new Map<string, ChainRunRecord>();

  put(run: ChainRunRecord): void {
    const parsed = copy(parseInput(ChainRunRecord, run, ["chain_run"]));
    this.chainRuns.set(parsed.id, parsed);
  }

  get(id: string): ChainRunRecord | null {
    const run = this.chainRuns.get(id);
    return run ? copy(run) : null;
  }

  list(filter: ChainRunFilter, page: PageQuery): ChainRunRecord[] {
    const { projectId, chain } = filter;
    const listed = (run: ChainRunRecord) =>
      run.project_id === projectId && (chain === undefined || run.chain === chain);
    return pageOf([...this.chainRuns.values()].filter(listed), page).map(copy);
  }

  unfinished(): ChainRunRecord[] {
    const unfinished = (run: ChainRunRecord) => !FINISHED_CHAIN_STATUSES.includes(run.status);
    return [...this.chainRuns.values()].filter(unfinished).map(copy);
  }
}
