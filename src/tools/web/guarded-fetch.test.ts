import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type LocalSite,
  redirect,
  reply,
  startLocalSite,
} from "../../../test/support/local-site.js";
import { createWebClient, type Resolve, type WebOutcome } from "./guarded-fetch.js";
import { DEFAULT_WEB_SETTINGS, type WebSettings } from "./web-settings.js";

let site: LocalSite;
const hops = { count: 0 };

beforeAll(async () => {
  site = await startLocalSite({
    "/page": reply(200, "text/plain", "hello"),
    "/to-page": redirect("/page"),
    "/to-private": redirect("http://10.0.0.1/admin"),
    "/to-metadata": redirect("http://169.254.169.254/latest/meta-data/"),
    "/to-loopback-v6": (_req, res) =>
      res.writeHead(302, { location: `http://[::1]:${site.port}/page` }).end(),
    "/to-named-internal": (_req, res) =>
      res.writeHead(307, { location: `http://internal.test:${site.port}/page` }).end(),
    "/loop": (_req, res) => {
      hops.count += 1;
      res.writeHead(302, { location: "/loop" }).end();
    },
    "/post-303": redirect("/page", 303),
    "/to-other-origin": (_req, res) =>
      res.writeHead(307, { location: `http://localhost:${site.port}/page` }).end(),
    "/big": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      // 4 MiB in 64 KiB pieces: far more than the test's limit.
      const piece = "x".repeat(64 * 1024);
      for (let i = 0; i < 64; i += 1) res.write(piece);
      res.end();
    },
    "/stall": () => {},
  });
});
afterAll(() => site.close());

/** A client that may reach the site at 127.0.0.1, and nothing else private. */
function client(settings: Partial<WebSettings> = {}, resolve?: Resolve) {
  return createWebClient(
    { ...DEFAULT_WEB_SETTINGS, allowedNetworks: ["127.0.0.1/32"], ...settings },
    resolve,
  );
}
const get = (url: string, settings: Partial<WebSettings> = {}, resolve?: Resolve) =>
  client(settings, resolve).request({ method: "GET", url }, new AbortController().signal);
const errorOf = (outcome: WebOutcome) =>
  outcome.ok ? `ok ${outcome.response.status}` : outcome.error;
const seen = (path: string) => site.requests.filter((r) => r.path === path).length;

describe("the guarded web client", () => {
  it("fetches an allowed address and follows a redirect on the same site", async () => {
    const outcome = await get(`${site.url}/to-page`);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.response.url).toBe(`${site.url}/page`);
    expect(Buffer.from(outcome.response.body).toString()).toBe("hello");
  });

  it("refuses loopback when no network is allowed, without connecting", async () => {
    const before = seen("/page");
    const outcome = await get(`${site.url}/page`, { allowedNetworks: [] });
    expect(errorOf(outcome)).toBe("refused to connect to 127.0.0.1: it is a loopback address");
    expect(seen("/page")).toBe(before);
  });

  it("refuses a host name that resolves to a loopback address", async () => {
    const toLoopback: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
    const before = seen("/page");
    const outcome = await get(
      `http://public.test:${site.port}/page`,
      { allowedNetworks: [] },
      toLoopback,
    );
    expect(errorOf(outcome)).toBe(
      "refused to connect to public.test (127.0.0.1): it is a loopback address",
    );
    // And `localhost` through the system's own resolver.
    expect(
      errorOf(await get(`http://localhost:${site.port}/page`, { allowedNetworks: [] })),
    ).toMatch(/refused to connect to localhost \((127\.0\.0\.1|::1)\): it is a loopback address/);
    expect(seen("/page")).toBe(before);
  });

  it("refuses a name with any private address among its public ones", async () => {
    const mixed: Resolve = async () => [
      { address: "8.8.8.8", family: 4 },
      { address: "::ffff:10.0.0.1", family: 6 },
    ];
    expect(errorOf(await get("http://mixed.test/", {}, mixed))).toMatch(
      /mixed\.test \(::ffff:10\.0\.0\.1\): it is IPv4-mapped form of a private address/,
    );
  });

  it("checks every redirect target again and refuses private ones", async () => {
    expect(errorOf(await get(`${site.url}/to-private`))).toBe(
      "refused to connect to 10.0.0.1: it is a private address (RFC 1918)",
    );
    expect(errorOf(await get(`${site.url}/to-metadata`))).toBe(
      "refused to connect to 169.254.169.254: it is a cloud metadata address",
    );
    expect(errorOf(await get(`${site.url}/to-loopback-v6`))).toBe(
      "refused to connect to ::1: it is a loopback address",
    );
    const internal: Resolve = async () => [{ address: "fd00::5", family: 6 }];
    expect(errorOf(await get(`${site.url}/to-named-internal`, {}, internal))).toMatch(
      /internal\.test \(fd00::5\): it is a unique local address/,
    );
  });

  it("stops after the configured number of redirects", async () => {
    hops.count = 0;
    expect(errorOf(await get(`${site.url}/loop`, { maxRedirects: 3 }))).toBe(
      "stopped after 3 redirects",
    );
    expect(hops.count).toBe(4);
  });

  it("turns a POST into a GET on 303, and drops credentials on a cross-origin redirect", async () => {
    const c = client({ allowPrivateAddresses: true });
    const signal = new AbortController().signal;
    await c.request({ method: "POST", url: `${site.url}/post-303`, body: "x" }, signal);
    expect(site.requests.at(-1)).toMatchObject({ method: "GET", path: "/page", body: "" });
    const headers = { authorization: "Bearer secret", "x-kept": "yes" };
    await c.request({ method: "GET", url: `${site.url}/to-other-origin`, headers }, signal);
    const last = site.requests.at(-1);
    expect(last?.headers.host).toBe(`localhost:${site.port}`);
    expect(last?.headers.authorization).toBeUndefined();
    expect(last?.headers["x-kept"]).toBe("yes");
  });

  it("cuts the body at max_bytes", async () => {
    const outcome = await get(`${site.url}/big`, { maxBytes: 10_000 });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.response.body.length).toBe(10_000);
    expect(outcome.response.truncated).toBe(true);
  });

  it("gives up after timeout_ms, and when the caller's signal aborts", async () => {
    expect(errorOf(await get(`${site.url}/stall`, { timeoutMs: 200 }))).toBe(
      `timed out after 200 ms (${site.url}/stall)`,
    );
    const controller = new AbortController();
    const pending = client().request(
      { method: "GET", url: `${site.url}/stall` },
      controller.signal,
    );
    controller.abort(new Error("run cancelled"));
    expect(errorOf(await pending)).toBe("cancelled");
  });

  it("refuses other schemes, credentials in the URL and malformed URLs", async () => {
    expect(errorOf(await get("ftp://example.com/file"))).toBe(
      "only http and https URLs can be fetched, not ftp:",
    );
    expect(errorOf(await get("file:///etc/passwd"))).toMatch(/not file:/);
    expect(errorOf(await get("http://user:pw@example.com/"))).toMatch(/user name or password/);
    expect(errorOf(await get("not a url"))).toBe("'not a url' is not a valid URL");
  });

  it("says why a host cannot be reached", async () => {
    const nowhere: Resolve = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.test"), { code: "ENOTFOUND" });
    };
    expect(errorOf(await get("http://nowhere.test/", {}, nowhere))).toBe(
      "could not reach nowhere.test: getaddrinfo ENOTFOUND nowhere.test",
    );
  });
});
