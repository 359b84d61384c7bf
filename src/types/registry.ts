import { ConflictError } from "../core/errors.js";
import type { AgentType } from "./agent-type.js";

/**
 * The agent types a server knows, by name: the built-ins and those from config files alike.
 * Registering a name twice is an error; define a new type that `extends:` the old one instead.
 */
export class AgentTypeRegistry {
  readonly #types = new Map<string, AgentType>();

  constructor(types: Iterable<AgentType> = []) {
    for (const type of types) this.register(type);
  }

  register(type: AgentType): void {
    if (this.#types.has(type.name)) {
      throw new ConflictError(`agent type '${type.name}' is already registered`);
    }
    this.#types.set(type.name, type);
  }

  get(name: string): AgentType | undefined {
    return this.#types.get(name);
  }

  has(name: string): boolean {
    return this.#types.has(name);
  }

  /** Every type, in the order they were registered. */
  list(): AgentType[] {
    return [...this.#types.values()];
  }

  names(): string[] {
    return [...this.#types.keys()];
  }
}
