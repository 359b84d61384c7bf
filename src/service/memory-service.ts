import type { ServiceContext } from "./agent-access.js";

/** Core blocks and archival passages of agents, as Letta's API sees them. */
export class MemoryService {
  constructor(protected readonly ctx: ServiceContext) {}
}
