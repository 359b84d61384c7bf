import pg from "pg";

/** The channel on which a change of the stored MCP servers reaches every process. */
const mcpChannel = (schema: string) => `${schema}_mcp`;

/**
 * MCP servers added through the API are stored; each process of the cluster (API servers and
 * workers) keeps its own connections to them. A change goes out by NOTIFY, and each process
 * brings its connections in line with the store.
 */
export async function announceMcpChange(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: "holdfast api" });
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query("SELECT pg_notify($1, '')", [mcpChannel(schema)]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Calls `sync` on every change announced, one at a time; `settled` resolves once the last
 * one is done (a worker awaits it before a job, so a turn sees a server added just before).
 */
export async function followMcpChanges(
  url: string,
  schema: string,
  sync: () => Promise<void>,
): Promise<{ settled(): Promise<void>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url, application_name: "holdfast mcp" });
  client.on("error", () => undefined);
  await client.connect();
  let last: Promise<void> = Promise.resolve();
  client.on("notification", () => {
    last = last.then(sync).catch(() => undefined);
  });
  await client.query(`LISTEN "${mcpChannel(schema)}"`);
  return {
    settled: () => last,
    close: () => client.end().catch(() => undefined),
  };
}
