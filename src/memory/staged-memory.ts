import type { Clock } from "../core/clock.js";
import type { IdSource } from "../core/ids.js";
import type { CoreBlock, MemoryChanges, Passage } from "../records/memory-records.js";
import type { MessageSearch, PassageSearch } from "../storage/turn-store.js";
import type { AgentMemory, MemorySearch } from "./agent-memory.js";

/**
 * An agent's memory during a turn: reads see staged edits; `drain` hands the edits to the
 * runner's commit and makes them the new base.
 */
export class StagedMemory implements AgentMemory {
  readonly #blocks: Map<string, CoreBlock>;
  readonly #changed = new Set<string>();
  /** Each block's value as last read or committed, by id: what the store rebases edits on. */
  readonly #bases = new Map<string, string>();
  #passages: Passage[] = [];

  constructor(
    blocks: readonly CoreBlock[],
    private readonly search: MemorySearch,
    private readonly ids: IdSource,
    private readonly clock: Clock,
  ) {
    this.#blocks = new Map(blocks.map((block) => [block.label, { ...block }]));
    for (const block of blocks) this.#bases.set(block.id, block.value);
  }

  blocks(): readonly CoreBlock[] {
    return [...this.#blocks.values()];
  }

  setBlockValue(label: string, value: string): void {
    const block = this.#blocks.get(label);
    if (!block) throw new Error(`no block '${label}'`);
    this.#blocks.set(label, { ...block, value });
    this.#changed.add(label);
  }

  async insertPassage(text: string, tags: readonly string[]): Promise<Passage> {
    const passage = {
      id: this.ids.next("passage"),
      text,
      tags: [...tags],
      created_at_ms: this.clock.now(),
    };
    this.#passages.push(passage);
    return passage;
  }

  searchPassages(query: string, options: PassageSearch) {
    return this.search.searchPassages(query, options);
  }

  searchMessages(query: string, options: MessageSearch) {
    return this.search.searchMessages(query, options);
  }

  /** The edits since the last drain. */
  drain(): MemoryChanges {
    const blocks = [...this.#changed].flatMap((label) => this.#blocks.get(label) ?? []);
    const bases: Record<string, string> = {};
    for (const block of blocks) {
      bases[block.id] = this.#bases.get(block.id) ?? block.value;
      this.#bases.set(block.id, block.value);
    }
    const changes = { blocks, passages: this.#passages, ...(blocks.length > 0 ? { bases } : {}) };
    this.#changed.clear();
    this.#passages = [];
    return changes;
  }
}
