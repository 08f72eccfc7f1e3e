/**
 * Units of the sandbox boundary: the file-backed bridge (atomic envelopes, doorbell names),
 * strict JSON copying of tool results, the environment allowlist and the permission flags.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvelopeBridge, FrameReader } from "../../runtime-min/sandbox/bridge.js";
import { eventTypeProblem } from "../../runtime-min/sandbox/event-type.js";
import { copyJson, MAX_JSON_DEPTH, nestedDeeperThan } from "../../runtime-min/sandbox/json-copy.js";
import { sandboxEnvironment, sandboxNodeFlags } from "../../runtime-min/sandbox/sandbox-environment.js";
import { tempDir } from "../helpers/temp-tree.js";

describe("EnvelopeBridge", () => {
  it("publishes each message as a complete, uniquely named file and rings the doorbell after the rename", () => {
    const dir = tempDir("al-bridge-");
    const rung: string[] = [];
    const host = new EnvelopeBridge(dir, "h", (line) => {
      // When the doorbell rings, the final file is complete: exactly the announced bytes of JSON.
      const [name, bytes] = line.trim().split(" ");
      const files = fs.readdirSync(dir);
      expect(files).toContain(name);
      expect(files).not.toContain(`.${name}.tmp`);
      const text = fs.readFileSync(path.join(dir, name!));
      expect(text.byteLength).toBe(Number(bytes));
      expect(JSON.parse(text.toString("utf8"))).toBeTypeOf("object");
      rung.push(line);
    });
    const child = new EnvelopeBridge(dir, "c", () => undefined);
    const big = { kind: "call", payload: "x".repeat(12 * 1024 * 1024), accents: "é✓", nested: { "__proto__": 1 } };
    host.publish(big);
    host.publish({ kind: "second" });
    const bigBytes = Buffer.byteLength(JSON.stringify(big));
    expect(rung).toEqual([`h-1.json ${bigBytes}\n`, "h-2.json 17\n"]);
    // After a publish, an empty temporary file waits for the next message.
    expect(fs.readdirSync(dir).sort()).toEqual([".h-3.json.tmp", "h-1.json", "h-2.json"]);
    expect(fs.statSync(path.join(dir, ".h-3.json.tmp")).size).toBe(0);
    expect(child.take(rung[0]!.trim())).toEqual(JSON.parse(JSON.stringify(big)));
    expect(child.take(rung[1]!.trim())).toEqual({ kind: "second" });
    // The reader unlinks what it read right after its own next publish.
    child.publish({ kind: "reply" });
    expect(fs.readdirSync(dir).sort()).toEqual([".c-2.json.tmp", ".h-3.json.tmp", "c-1.json"]);
    host.close();
    child.close();
    expect(fs.readdirSync(dir).sort()).toEqual(["c-1.json"]);
  });

  it("refuses doorbells that do not name an envelope of the other side", () => {
    const dir = tempDir("al-bridge-");
    const child = new EnvelopeBridge(dir, "c", () => undefined);
    for (const line of ["c-1.json 2", "../h-1.json 2", "h-1.json.tmp 2", "/etc/passwd 2", ".h-1.json.tmp 2", "h-1.json", "h-1.json -1", "h-1.json 2 3"]) {
      expect(() => child.take(line)).toThrow(/is not an envelope of the other side/);
    }
  });

  it("refuses an envelope shorter than its doorbell announced", () => {
    const dir = tempDir("al-bridge-");
    fs.writeFileSync(path.join(dir, "h-1.json"), "{}");
    const child = new EnvelopeBridge(dir, "c", () => undefined);
    expect(() => child.take("h-1.json 10")).toThrow("The bridge envelope 'h-1.json' has 2 bytes, not the 10 its doorbell announced.");
  });

  it("splits doorbell bytes into lines across chunk boundaries", () => {
    const reader = new FrameReader();
    const lines = (chunk: string) => reader.push(Buffer.from(chunk)).map((frame) => (frame.kind === "file" ? frame.line : frame.text));
    expect(lines("h-1.js")).toEqual([]);
    expect(lines("on 2\nh-2.json 3\nh-")).toEqual(["h-1.json 2", "h-2.json 3"]);
    expect(lines("3.json 4\n")).toEqual(["h-3.json 4"]);
  });
});

describe("eventTypeProblem (the one rule for a tool's event type, in the child's ctx.emit and the host's message check)", () => {
  it("refuses a missing or empty type, a reserved prefix and control characters; accepts a tool's own type", () => {
    expect(eventTypeProblem("note.recorded")).toBeUndefined();
    expect(eventTypeProblem("")).toMatch(/non-empty string event type/);
    expect(eventTypeProblem({ a: 1 })).toMatch(/non-empty string event type/);
    expect(eventTypeProblem("run.ended")).toMatch(/starting with 'run\.' are recorded by the runtime itself/);
    expect(eventTypeProblem("note\u001b]0;title\u0007")).toBe('ctx.emit cannot record "note\\u001b]0;title\\u0007": an event type cannot hold control characters.');
    expect(eventTypeProblem("note\u009b2J")).toMatch(/control characters/);
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

  it(`refuses a value nested deeper than ${MAX_JSON_DEPTH} levels, naming where (the host could not serialise it: helper-89 finding 4), and copies one at the bound`, () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 1;
      for (let level = 0; level < levels; level++) value = level % 2 === 0 ? [value] : { a: value };
      return value;
    };
    expect(JSON.stringify(copyJson(nest(MAX_JSON_DEPTH), "result"))).toBe(JSON.stringify(nest(MAX_JSON_DEPTH)));
    expect(() => copyJson(nest(MAX_JSON_DEPTH + 1), "result")).toThrow(/^result(\[0\]|\.a)+ is nested deeper than 1000 levels of objects and arrays; the value must be JSON-serializable\.$/);
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestedDeeperThan(JSON.parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`), MAX_JSON_DEPTH)).toBe(true);
  });

  it("copies keys Object.prototype also has as own data, never through an inherited setter (even on a polluted prototype)", () => {
    let setterRan = false;
    Object.defineProperty(Object.prototype, "trap", { set: () => (setterRan = true), configurable: true });
    try {
      const copied = copyJson({ trap: 1, toString: "s", constructor: { name: "c" }, plain: 2 }, "result") as Record<string, unknown>;
      expect(setterRan).toBe(false);
      expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
      for (const key of ["trap", "toString", "constructor", "plain"]) expect(Object.getOwnPropertyDescriptor(copied, key)).toMatchObject({ enumerable: true, writable: true, configurable: true });
      expect(JSON.stringify(copied)).toBe('{"trap":1,"toString":"s","constructor":{"name":"c"},"plain":2}');
    } finally {
      delete (Object.prototype as Record<string, unknown>).trap;
    }
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
