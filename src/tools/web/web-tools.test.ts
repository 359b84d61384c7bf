import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalSite, reply, startLocalSite } from "../../../test/support/local-site.js";
import { systemClock } from "../../core/clock.js";
import type { AgentMemory } from "../../memory/agent-memory.js";
import type { ToolContext, ToolImplementation } from "../tool.js";
import { webImplementations } from "./index.js";
import { DEFAULT_WEB_SETTINGS, MAX_OUTPUT_CHARS } from "./web-settings.js";

let site: LocalSite;
beforeAll(async () => {
  site = await startLocalSite({
    "/article": reply(
      200,
      "text/html; charset=utf-8",
      "<html><head><title>Green tea</title></head><body><h1>Brewing</h1><p>Use <a href='/water'>cool water</a>.</p></body></html>",
    ),
    "/notes.txt": reply(200, "text/plain", "line one\nline two"),
    "/logo.png": reply(200, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1])),
    "/huge": reply(200, "text/plain", "y".repeat(200_000)),
    "/gone": reply(404, "text/html", "<h1>Not here</h1>"),
    "/api/items": (request, response) =>
      response
        .writeHead(201, {
          "content-type": "application/json",
          "set-cookie": "session=s3cret",
          "x-request-id": "r-1",
        })
        .end(
          JSON.stringify({
            got: request.method,
            body: request.body,
            type: request.headers["content-type"],
          }),
        ),
  });
});
afterAll(() => site.close());

const tools = new Map(
  webImplementations({
    ...DEFAULT_WEB_SETTINGS,
    allowedNetworks: ["127.0.0.1/32"],
    maxBytes: 100_000,
  }).map((tool) => [tool.declaration.name, tool]),
);
const context = (): ToolContext => ({
  agentId: "agent-test",
  workspace: { root: null, readOnly: true, network: false },
  memory: {} as AgentMemory,
  clock: systemClock,
  signal: new AbortController().signal,
  idempotencyKey: "call-1",
});
function run(name: string, args: Record<string, unknown>) {
  const tool = tools.get(name) as ToolImplementation;
  return tool.run(tool.declaration.parameters.parse(args), context());
}

describe("web_fetch", () => {
  it("returns an HTML page as markdown, with its title and absolute links", async () => {
    const result = await run("web_fetch", { url: `${site.url}/article` });
    expect(result.status).toBe("success");
    expect(result.output).toBe(
      [
        `URL: ${site.url}/article`,
        "Status: 200 OK",
        "Content-Type: text/html; charset=utf-8",
        "Title: Green tea",
        "",
        "# Brewing",
        "",
        `Use [cool water](${site.url}/water).`,
      ].join("\n"),
    );
  });

  it("passes other text through and refuses binary content", async () => {
    const text = await run("web_fetch", { url: `${site.url}/notes.txt` });
    expect(text.output).toMatch(/Content-Type: text\/plain\n\nline one\nline two$/);
    const image = await run("web_fetch", { url: `${site.url}/logo.png` });
    expect(image).toEqual({
      status: "error",
      output: `web_fetch ${site.url}/logo.png: the response is binary (image/png), and web_fetch returns only text`,
    });
  });

  it("says when the body was cut at max_bytes, and caps what the model gets", async () => {
    const result = await run("web_fetch", { url: `${site.url}/huge` });
    expect(result.output).toContain("Note: the body was cut at 100000 bytes");
    expect(result.output).toContain(`[cut: `);
    expect(result.output.length).toBeLessThan(MAX_OUTPUT_CHARS + 200);
  });

  it("reports an error status as an error the model can read", async () => {
    const result = await run("web_fetch", { url: `${site.url}/gone` });
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/Status: 404 Not Found[\s\S]*# Not here/);
  });

  it("reports a refused address as a tool error", async () => {
    expect(await run("web_fetch", { url: "http://192.168.0.10/" })).toEqual({
      status: "error",
      output:
        "web_fetch http://192.168.0.10/: refused to connect to 192.168.0.10: it is a private address (RFC 1918)",
    });
  });
});

describe("http_request", () => {
  it("sends the method, headers and body and shows status, headers and body", async () => {
    const result = await run("http_request", {
      method: "POST",
      url: `${site.url}/api/items`,
      headers: { "content-type": "application/json" },
      body: '{"name":"kettle"}',
    });
    expect(result.status).toBe("success");
    expect(result.output).toMatch(/^HTTP 201 Created\nURL: .*\/api\/items\n/);
    expect(result.output).toContain("x-request-id: r-1");
    expect(result.output).not.toContain("s3cret");
    expect(result.output).toContain(
      '{"got":"POST","body":"{\\"name\\":\\"kettle\\"}","type":"application/json"}',
    );
  });

  it("treats any status as a result, and summarises a binary body", async () => {
    expect((await run("http_request", { method: "GET", url: `${site.url}/gone` })).status).toBe(
      "success",
    );
    const image = await run("http_request", { method: "GET", url: `${site.url}/logo.png` });
    expect(image.output).toContain("(binary body: 7 bytes, not shown)");
  });

  it("refuses reserved headers, a body on GET, and private addresses, as readable errors", async () => {
    const host = await run("http_request", {
      method: "GET",
      url: `${site.url}/`,
      headers: { Host: "x" },
    });
    expect(host.output).toBe("http_request: the 'Host' header is set by the client");
    const body = await run("http_request", { method: "GET", url: `${site.url}/`, body: "x" });
    expect(body.output).toBe("http_request: a GET request cannot have a body");
    const metadata = await run("http_request", {
      method: "PUT",
      url: "http://[fd00:ec2::254]/token",
    });
    expect(metadata.output).toMatch(
      /refused to connect to fd00:ec2::254: it is a cloud metadata address/,
    );
  });

  it("reports a malformed header as a readable error", async () => {
    const result = await run("http_request", {
      method: "GET",
      url: `${site.url}/notes.txt`,
      headers: { "bad header": "x" },
    });
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/^http_request GET .*: bad request: .*header/i);
  });

  it("is marked non-idempotent, and the read tools idempotent", () => {
    expect(tools.get("http_request")?.idempotent).toBe(false);
    expect(tools.get("web_fetch")?.idempotent).toBe(true);
    expect(tools.has("web_search")).toBe(false);
  });
});
