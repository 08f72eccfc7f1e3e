/**
 * Units of the sandbox boundary: the file-backed bridge (atomic envelopes, doorbell names),
 * strict JSON copying of tool results, the environment allowlist and the permission flags.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DoorbellReader, EnvelopeBridge } from "../../runtime-min/sandbox/bridge.js";
import { copyJson } from "../../runtime-min/sandbox/json-copy.js";
import { sandboxEnvironment, sandboxNodeFlags } from "../../runtime-min/sandbox/sandbox-environment.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("EnvelopeBridge", () => {
  it("publishes each message as a complete, uniquely named file and rings the doorbell after the rename", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-bridge-"));
    const rung: string[] = [];
    const host = new EnvelopeBridge(dir, "h", (line) => {
      // When the doorbell rings, the final file is complete and no temporary file is left.
      const name = line.trim();
      const files = fs.readdirSync(dir!);
      expect(files).toContain(name);
      expect(files.filter((file) => file.endsWith(".tmp"))).toEqual([]);
      expect(JSON.parse(fs.readFileSync(path.join(dir!, name), "utf8"))).toBeTypeOf("object");
      rung.push(line);
    });
    const child = new EnvelopeBridge(dir, "c", () => undefined);
    const big = { kind: "call", payload: "x".repeat(12 * 1024 * 1024), nested: { "__proto__": 1 } };
    host.publish(big);
    host.publish({ kind: "second" });
    expect(rung).toEqual(["h-1.json\n", "h-2.json\n"]);
    expect(fs.readdirSync(dir).sort()).toEqual(["h-1.json", "h-2.json"]);
    expect(child.take("h-1.json")).toEqual(JSON.parse(JSON.stringify(big)));
    expect(child.take("h-2.json")).toEqual({ kind: "second" });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("refuses doorbells that do not name an envelope of the other side", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-bridge-"));
    const child = new EnvelopeBridge(dir, "c", () => undefined);
    for (const name of ["c-1.json", "../h-1.json", "h-1.json.tmp", "/etc/passwd", ".h-1.json.tmp"]) {
      expect(() => child.take(name)).toThrow(/is not an envelope of the other side/);
    }
  });

  it("splits doorbell bytes into names across chunk boundaries", () => {
    const reader = new DoorbellReader();
    expect(reader.push("h-1.js")).toEqual([]);
    expect(reader.push("on\nh-2.json\nh-")).toEqual(["h-1.json", "h-2.json"]);
    expect(reader.push("3.json\n")).toEqual(["h-3.json"]);
  });
});

describe("copyJson", () => {
  it("returns the JSON round trip of well-formed values", () => {
    const value = { at: new Date(0), list: [1, undefined, "a"], skip: undefined, deep: { ok: true, none: null } };
    expect(copyJson(value, "result")).toEqual(JSON.parse(JSON.stringify(value)));
    const proto = copyJson(JSON.parse('{"__proto__": {"polluted": true}}'), "result") as Record<string, unknown>;
    expect(Object.keys(proto)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [undefined, "result is undefined"],
    [{ n: 10n }, "result.n is a BigInt"],
    [{ f: () => 1 }, "result.f is a function"],
    [{ s: Symbol("x") }, "result.s is a symbol"],
    [{ n: Number.NaN }, "result.n is NaN, which JSON cannot represent"],
    [{ m: new Map([[1, 2]]) }, "result.m is a Map object, not a plain object"],
    [{ "a b": [new Set()] }, 'result["a b"][0] is a Set object, not a plain object'],
  ])("refuses %s", (value, message) => {
    expect(() => copyJson(value, "result")).toThrow(`${message}; the value must be JSON-serializable.`);
  });

  it("refuses cycles but accepts shared references", () => {
    const shared = { x: 1 };
    expect(copyJson({ a: shared, b: shared }, "result")).toEqual({ a: { x: 1 }, b: { x: 1 } });
    const cycle: Record<string, unknown> = {};
    cycle.me = [cycle];
    expect(() => copyJson(cycle, "result")).toThrow("result.me[0] refers back to one of its parents (a cycle)");
  });
});

describe("sandbox environment", () => {
  it("copies only allowlisted variables and sets HOME and TMPDIR to the workspace", () => {
    const env = sandboxEnvironment("/ws", { PATH: "/bin", LANG: "C.UTF-8", SECRET_TOKEN: "x", NODE_OPTIONS: "--inspect", AWS_SECRET_ACCESS_KEY: "y", TZ: "UTC" });
    expect(env).toEqual({ PATH: "/bin", LANG: "C.UTF-8", TZ: "UTC", HOME: "/ws", TMPDIR: "/ws/.tmp" });
  });

  it("grants each path with its own permission flag", () => {
    const flags = sandboxNodeFlags({ read: ["/a", "/b"], write: ["/b"] }, "--experimental-permission");
    expect(flags).toContain("--experimental-permission");
    expect(flags.filter((flag) => flag.startsWith("--allow-fs-"))).toEqual(["--allow-fs-read=/a", "--allow-fs-read=/b", "--allow-fs-write=/b"]);
    expect(flags.some((flag) => flag.startsWith("--allow-child-process"))).toBe(false);
    expect(sandboxNodeFlags({ read: ["/a"], write: [] }, undefined).some((flag) => flag.includes("permission"))).toBe(false);
  });
});
