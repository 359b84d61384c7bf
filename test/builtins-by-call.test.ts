import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { builtinsByCall } from "../scripts/builtins-by-call.mjs";

/**
 * The CLI bundle reaches Node's built-ins through `process.getBuiltinModule`, and loads those no
 * command needs to start at first use (scripts/builtins-by-call.mjs): these tests run rewritten
 * code in a fresh Node, so what it loaded is its own.
 */

const CHUNK = `import { join as joinPath, sep } from "node:path";
import fs, { existsSync } from "node:fs";
import * as os from "node:os";
import childProcess from "node:child_process";
import { BlockList, isIP } from "node:net";
import { promises } from "node:dns";
import { z } from "zod";
const loaded = (name) => process.moduleLoadList.includes("NativeModule " + name);
const before = { net: loaded("net"), child_process: loaded("child_process"), dns: loaded("dns") };
const list = new BlockList();
list.addAddress("10.0.0.1");
console.log(JSON.stringify({
  before,
  joined: joinPath("a", "b"), sep, fsSame: fs.existsSync === existsSync, osType: typeof os.platform,
  ip: isIP("10.0.0.1"), blocked: list.check("10.0.0.1"), realBlockList: list instanceof process.getBuiltinModule("node:net").BlockList,
  spawnSync: typeof childProcess.spawnSync, lookup: typeof promises.lookup,
  after: { net: loaded("net"), child_process: loaded("child_process"), dns: loaded("dns") },
}));`;

function runRewritten(code: string): Record<string, unknown> {
  const body = code.replace('import { z } from "zod";\n', "");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", body], {
    encoding: "utf8",
  });
  return JSON.parse(out);
}

describe("built-in imports in the CLI bundle", () => {
  it("become getBuiltinModule calls, and only built-ins: other imports stay", () => {
    const { code } = builtinsByCall.renderChunk(CHUNK);
    expect(code).not.toMatch(/^import .* from "node:/m);
    expect(code).toContain('import { z } from "zod";');
  });

  it("bind what the imports bound, loading the deferred modules at first use", () => {
    const result = runRewritten(builtinsByCall.renderChunk(CHUNK).code);
    expect(result).toMatchObject({
      before: { net: false, child_process: false, dns: false },
      joined: "a/b",
      sep: "/",
      fsSame: true,
      osType: "function",
      ip: 4,
      blocked: true,
      realBlockList: true,
      spawnSync: "function",
      lookup: "function",
      after: { net: true, child_process: true, dns: true },
    });
  });

  it("refuses an import shape it does not know rather than bind it wrongly", () => {
    expect(() =>
      builtinsByCall.renderChunk('import { default as fs } from "node:fs";\nfs.existsSync("/");'),
    ).toThrow(/shape not handled/);
  });

  it("leave no ES import of a built-in in the built bundle", () => {
    const dir = fileURLToPath(new URL("../dist/bundle/", import.meta.url));
    const chunks = readdirSync(dir).filter((name) => name.endsWith(".mjs"));
    expect(chunks.length).toBeGreaterThan(10);
    for (const name of chunks) {
      expect(readFileSync(dir + name, "utf8"), name).not.toMatch(/^import .* from "node:/m);
    }
  });

  it("let the CLI start without the built-ins only some commands need", () => {
    const bin = fileURLToPath(new URL("../bin/holdfast.js", import.meta.url));
    const probe =
      "process.on('exit', () => process.stderr.write(JSON.stringify(process.moduleLoadList)));";
    const { stderr } = spawnSync(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(probe)}`, bin, "--version"],
      { encoding: "utf8" },
    );
    const loaded: string[] = JSON.parse(stderr);
    expect(loaded).toContain("NativeModule fs");
    // Not net: Node loads it for a standard output that is a pipe.
    for (const name of ["child_process", "worker_threads", "dns", "readline/promises"]) {
      expect(loaded).not.toContain(`NativeModule ${name}`);
    }
  });
});
