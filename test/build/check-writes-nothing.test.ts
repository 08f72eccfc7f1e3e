/**
 * `compile --check` (issue 10 item 2): checks the lock without bundling anything and without
 * writing anything — no lock, no artifact, no analysis cache, no `.assemblyline/.gitignore` —
 * and still finds drift. Bundling is observed through a spy on `bundleTools`.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { seedPlugins, supportAgentRoot } from "../helpers/support-agent.js";

const bundling = vi.hoisted(() => ({ calls: 0 }));
vi.mock("../../packaging/bundle-tools.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../packaging/bundle-tools.js")>();
  return {
    ...actual,
    bundleTools: (...args: Parameters<typeof actual.bundleTools>) => {
      bundling.calls++;
      return actual.bundleTools(...args);
    },
  };
});

/** Every file under `dir` (symlinks and all) → sha256 of its bytes, plus every folder. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const key = path.relative(dir, file);
    if (entry.isFile()) out[key] = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    else out[key] = entry.isDirectory() ? "dir" : "other";
  }
  return out;
}

let root: string;
beforeAll(async () => {
  root = copyAgent(supportAgentRoot);
  const compiled = await compileAgent({ root });
  expect(compiled.ok, JSON.stringify(compiled.diagnostics)).toBe(true);
}, 120_000);

describe("compile --check", () => {
  it("an up-to-date lock passes without bundling and without writing a byte", async () => {
    expect(bundling.calls).toBe(1);
    const before = snapshot(root);
    const checked = await compileAgent({ root, check: true });
    expect(checked.ok, JSON.stringify(checked.diagnostics)).toBe(true);
    expect(checked.checkReport?.status).toBe("up-to-date");
    expect(bundling.calls).toBe(1);
    expect(snapshot(root)).toEqual(before);
  });

  it("a fresh checkout (no .assemblyline/) stays without one", async () => {
    fs.rmSync(path.join(root, ".assemblyline"), { recursive: true, force: true });
    const before = snapshot(root);
    expect((await compileAgent({ root, check: true })).ok).toBe(true);
    expect(fs.existsSync(path.join(root, ".assemblyline"))).toBe(false);
    expect(snapshot(root)).toEqual(before);
    expect(bundling.calls).toBe(1);
  });

  it("finds drift in a changed tool without bundling it, and writes nothing", async () => {
    const echo = path.join(root, path.relative(supportAgentRoot, seedPlugins.example), "ai.assemblyline", "echo.ts");
    fs.appendFileSync(echo, "// A change to the implementation: the plugin's content integrity changes.\n");
    const before = snapshot(root);
    const checked = await compileAgent({ root, check: true });
    expect(checked.ok).toBe(false);
    expect(checked.diagnostics.map((d) => d.code)).toContain("AL6002");
    expect(bundling.calls).toBe(1);
    expect(snapshot(root)).toEqual(before);
  });
});
