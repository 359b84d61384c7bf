import { describe, expect, it } from "vitest";
import { resolveServerSettings, type SettingFlags } from "./server-settings.js";

describe("server settings", () => {
  it("defaults to 127.0.0.1:8283 with ./data", () => {
    expect(resolveServerSettings({}, {}, {}, null, "/srv")).toEqual({
      ok: true,
      settings: { host: "127.0.0.1", port: 8283, dataDir: "/srv/data" },
    });
  });

  it("takes a flag over env, env over the file, the file over the default", () => {
    const file = { host: "file-host", port: 3000, data_dir: "file-data" };
    const env = {
      HOLDFAST_HOST: "env-host",
      HOLDFAST_PORT: "4000",
      HOLDFAST_DATA_DIR: "/env-data",
    };
    const flags = { host: "flag-host", port: "5000", dataDir: "flag-data" };
    const at = (f: SettingFlags, e: NodeJS.ProcessEnv) =>
      resolveServerSettings(f, e, file, "/etc/hf/holdfast.yaml", "/srv");
    expect(at(flags, env)).toEqual({
      ok: true,
      settings: { host: "flag-host", port: 5000, dataDir: "/srv/flag-data" },
    });
    expect(at({}, env)).toEqual({
      ok: true,
      settings: { host: "env-host", port: 4000, dataDir: "/env-data" },
    });
    expect(at({}, {})).toEqual({
      ok: true,
      settings: { host: "file-host", port: 3000, dataDir: "/etc/hf/file-data" },
    });
  });

  it("rejects a port that is not a number in range, naming where it came from", () => {
    expect(resolveServerSettings({ port: "http" }, {}, {}, null, "/")).toEqual({
      ok: false,
      errors: [{ path: "--port", message: "'http' is not a port (0-65535)" }],
    });
    expect(resolveServerSettings({}, { HOLDFAST_PORT: "70000" }, {}, null, "/")).toMatchObject({
      ok: false,
      errors: [{ path: "HOLDFAST_PORT" }],
    });
  });
});
