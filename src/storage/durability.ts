import { z } from "zod";

/**
 * How far a commit has reached before the store acknowledges it.
 *
 * - `full` (the default): on disk. The store flushes (fsyncs) every commit before it answers,
 *   so an acknowledged message survives power loss and an OS crash. Group commit shares one
 *   flush among the concurrent agents whose steps commit together.
 * - `normal`: in the operating system. An acknowledged message survives the process dying
 *   (`kill -9`), but the last commits may be lost on power loss or an OS crash; flushes happen
 *   only at checkpoints, so commits are cheaper.
 */
export const Durability = z.enum(["full", "normal"]);
export type Durability = z.infer<typeof Durability>;

export const DEFAULT_DURABILITY: Durability = "full";
