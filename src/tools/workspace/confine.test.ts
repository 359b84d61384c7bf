import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveInWorkspace } from "./confine.js";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "holdfast-confine-")));
  root = join(base, "workspace");
  outside = join(base, "outside");
  await mkdir(join(root, "docs"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "docs", "readme.md"), "inside");
  await writeFile(join(outside, "secret.txt"), "outside");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(requested: string, workspace = root): Promise<string> {
  const result = await resolveInWorkspace(workspace, requested);
  if (result.ok) throw new Error(`expected '${requested}' to be refused, got ${result.path}`);
  return result.error;
}

async function resolved(requested: string, workspace = root): Promise<string> {
  const result = await resolveInWorkspace(workspace, requested);
  if (!result.ok) throw new Error(`expected '${requested}' to be allowed: ${result.error}`);
  return result.path;
}

describe("resolveInWorkspace", () => {
  it("resolves a relative path from the workspace root", async () => {
    expect(await resolved("docs/readme.md")).toBe(join(root, "docs", "readme.md"));
    expect(await resolved("docs/../docs/./readme.md")).toBe(join(root, "docs", "readme.md"));
    expect(await resolved(".")).toBe(root);
    expect(await resolved("")).toBe(root);
  });

  it("resolves a file that does not exist yet to where it would be created", async () => {
    expect(await resolved("new/dir/file.txt")).toBe(join(root, "new", "dir", "file.txt"));
  });

  it("refuses a path that climbs out of the workspace with '..'", async () => {
    expect(await refusal("../outside/secret.txt")).toContain("climbs out of the workspace");
    expect(await refusal("docs/../../outside")).toContain("climbs out of the workspace");
    expect(await refusal("..")).toContain("climbs out of the workspace");
  });

  it("allows a name that merely starts with two dots", async () => {
    expect(await resolved("..hidden")).toBe(join(root, "..hidden"));
  });

  it("refuses an absolute path outside the workspace", async () => {
    expect(await refusal("/etc/passwd")).toContain("is outside the workspace");
    expect(await refusal(join(outside, "secret.txt"))).toContain("is outside the workspace");
  });

  it("accepts an absolute path inside the workspace", async () => {
    expect(await resolved(join(root, "docs", "readme.md"))).toBe(join(root, "docs", "readme.md"));
  });

  it("refuses a symlink that leads outside the workspace", async () => {
    await symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    expect(await refusal("link.txt")).toContain("leads outside the workspace");
  });

  it("refuses a path through a directory symlink that leads outside the workspace", async () => {
    await symlink(outside, join(root, "out"));
    expect(await refusal("out/secret.txt")).toContain("leads outside the workspace");
    expect(await refusal("out")).toContain("leads outside the workspace");
  });

  it("refuses a new file under a directory symlink that leads outside the workspace", async () => {
    await symlink(outside, join(root, "out"));
    expect(await refusal("out/new/file.txt")).toContain("leads outside the workspace");
  });

  it("refuses a dangling symlink whose target would be created outside the workspace", async () => {
    await symlink(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
    expect(await refusal("dangling.txt")).toContain("leads outside the workspace");
  });

  it("refuses a relative symlink that climbs out of the workspace", async () => {
    await symlink("../../outside/secret.txt", join(root, "docs", "sneaky.txt"));
    expect(await refusal("docs/sneaky.txt")).toContain("leads outside the workspace");
  });

  it("allows a path through a symlink that stays inside, giving its real location", async () => {
    await symlink("docs", join(root, "manual"));
    await symlink(join(root, "docs", "readme.md"), join(root, "readme-link.md"));
    expect(await resolved("manual/readme.md")).toBe(join(root, "docs", "readme.md"));
    expect(await resolved("readme-link.md")).toBe(join(root, "docs", "readme.md"));
  });

  it("accepts a workspace root that is itself reached through a symlink", async () => {
    const alias = join(base, "alias");
    await symlink(root, alias);
    expect(await resolved("docs/readme.md", alias)).toBe(join(root, "docs", "readme.md"));
    expect(await resolved(join(alias, "docs"), alias)).toBe(join(root, "docs"));
  });

  it("refuses a loop of symlinks", async () => {
    await symlink("b", join(root, "a"));
    await symlink("a", join(root, "b"));
    expect(await refusal("a")).toContain("too many levels of symbolic links");
  });

  it("refuses a path with a NUL character", async () => {
    expect(await refusal("docs\0/readme.md")).toContain("NUL character");
  });

  it("says so when the workspace root does not exist", async () => {
    expect(await refusal("file.txt", join(base, "missing"))).toContain("root does not exist");
  });
});
