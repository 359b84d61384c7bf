import { closeSync, openSync, readSync } from "node:fs";

/** Makes ids like Letta's (`message-…`, `agent-…`). Injected so simulations get stable ids. */
export interface IdSource {
  next(prefix: string): string;
}

/**
 * The text as one flat string. An id is built from some ten pieces, and V8 keeps such a
 * string as the chain of pieces (hundreds of bytes) until something flattens it;
 * ids are kept by every activation, message and run in memory, so they are copied flat once.
 * Ids are ASCII, which latin1 copies exactly.
 */
const flat = (text: string) => Buffer.from(text, "latin1").toString("latin1");

/**
 * UUIDv7 ids (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter within the millisecond
 * (its "dedicated counter" method), then the variant and 62 random bits. Ids made one after
 * another sort one after another, so the unique index on each table's ids grows at its end: a
 * batch of steps from 100 agents with random UUIDs dirtied a page of every such index per step,
 * written to the WAL at each commit (100 agents × 20 turns: ~11% more turns a second). Within a
 * process ids never go backwards: a clock stepping back reuses the last millisecond, and a
 * counter run out borrows the next one.
 */
export function timeOrderedIds(now: () => number = Date.now): IdSource {
  let lastMs = 0;
  let counter = 0;
  return {
    next(prefix) {
      let ms = now();
      if (ms > lastMs) counter = 0;
      else {
        ms = lastMs;
        counter += 1;
        if (counter > MAX_COUNTER) {
          ms += 1;
          counter = 0;
        }
      }
      lastMs = ms;
      const time = ms.toString(16).padStart(12, "0");
      const variantAndRandom = variantAndRandomDigits();
      const sequence = counter.toString(16).padStart(3, "0");
      return flat(
        `${prefix}-${time.slice(0, 8)}-${time.slice(8)}-7${sequence}-${variantAndRandom}`,
      );
    },
  };
}

const MAX_COUNTER = 0xfff;

/** A UUID's last 16 digits ("vxxx-xxxxxxxxxxxx"): the variant bits (10), then 62 random bits. */
function variantAndRandomDigits(): string {
  const bytes = randomBytes(8);
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 4)}-${hex.slice(4)}`;
}

/**
 * Random bytes from the operating system's generator, read from /dev/urandom a block at a
 * time (as node:crypto's `randomUUID` keeps a block of its own). Not node:crypto itself:
 * loading it (with Node's streams) took 9–13 ms of a process's start here, before its first
 * id. Where there is no /dev/urandom (Windows), node:crypto fills the block.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomBytes(count: number): Buffer {
  if (poolOffset + count > POOL_BYTES) {
    refill(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + count));
  poolOffset += count;
  return bytes;
}

function refill(block: Buffer): void {
  let fd: number | undefined;
  try {
    fd = openSync("/dev/urandom", "r");
    for (let filled = 0; filled < block.length; ) {
      const read = readSync(fd, block, filled, block.length - filled, null);
      if (read === 0) throw new Error("/dev/urandom ended");
      filled += read;
    }
  } catch {
    nodeCrypto().randomFillSync(block);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** node:crypto, loaded when first needed (see `randomBytes`). */
const nodeCrypto = () => process.getBuiltinModule("node:crypto");

/** Ids for a running server: unique, and in the order they were made. */
export const productionIds: IdSource = timeOrderedIds();

/** Ids numbered from 1 per prefix: deterministic, for tests and simulations. */
export function sequentialIds(): IdSource {
  const counters = new Map<string, number>();
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}-${String(n).padStart(8, "0")}`;
    },
  };
}

/**
 * An id that is a function of `parts`: the same parts always give the same id, so an effect
 * keyed by it (a sub-agent for one spawn call) is made once however often a step is retried.
 */
export function derivedId(prefix: string, ...parts: string[]): string {
  const hex = nodeCrypto().createHash("sha256").update(parts.join("\u0000")).digest("hex");
  return `${prefix}-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
