/**
 * The words of what an authored tool threw (`runtime-min/sandbox/thrown-message.ts`): the cause
 * chain, bounded (helper-78 D3).
 */
import { describe, expect, it } from "vitest";
import { describeThrown, MAX_CAUSE_CHARS } from "../../runtime-min/sandbox/thrown-message.js";

describe("describeThrown", () => {
  it("is the message alone without a cause", () => {
    expect(describeThrown(new Error("Database unavailable"))).toBe("Database unavailable");
    expect(describeThrown("plain")).toBe("plain");
    expect(describeThrown({ reason: 1 })).toBe('{"reason":1}');
  });

  it("adds the causes' messages, at most three, never their stacks", () => {
    const root = new Error("self-signed certificate in certificate chain");
    expect(describeThrown(new TypeError("fetch failed", { cause: root }))).toBe("fetch failed (cause: self-signed certificate in certificate chain)");
    let error: Error = root;
    for (let level = 1; level <= 5; level++) error = new Error(`level ${level}`, { cause: error });
    expect(describeThrown(error)).toBe("level 5 (cause: level 4; caused by: level 3; caused by: level 2)");
    expect(describeThrown(error)).not.toContain(" at ");
  });

  it("names a cause without a message by its errors or its code (fetch's AggregateError of connection attempts)", () => {
    const attempts = Object.assign(new AggregateError([new Error("connect ECONNREFUSED ::1:9"), new Error("connect ECONNREFUSED 127.0.0.1:9")], ""), { code: "ECONNREFUSED" });
    expect(describeThrown(new TypeError("fetch failed", { cause: attempts }))).toBe("fetch failed (cause: connect ECONNREFUSED ::1:9; connect ECONNREFUSED 127.0.0.1:9)");
    const coded = Object.assign(new Error(""), { code: "ECONNRESET" });
    expect(describeThrown(new TypeError("fetch failed", { cause: coded }))).toBe("fetch failed (cause: ECONNRESET)");
  });

  it("does not repeat a cause the message already holds, and stops at a cycle", () => {
    const inner = new Error("disk full");
    expect(describeThrown(new Error(`saving failed: ${inner.message}`, { cause: inner }))).toBe("saving failed: disk full");
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(describeThrown(a)).toBe("a (cause: b)");
  });

  it("falls back to the message when reading a cause throws", () => {
    const hostile = new Error("outer");
    Object.defineProperty(hostile, "cause", { get: () => { throw new Error("no"); } });
    expect(describeThrown(hostile)).toBe("outer");
  });

  it("bounds each cause to one line of at most MAX_CAUSE_CHARS characters", () => {
    const long = new Error(`first line\n${"x".repeat(2 * MAX_CAUSE_CHARS)}`);
    const shown = describeThrown(new Error("outer", { cause: long }));
    expect(shown).not.toContain("\n");
    expect(shown.length).toBeLessThanOrEqual("outer (cause: )".length + MAX_CAUSE_CHARS + 1);
    expect(shown).toMatch(/…\)$/);
  });
});

describe("describeThrown of a refusal of Node's permission model (helper-78 D8.6)", () => {
  const refusal = (permission: string, resource: string) =>
    Object.assign(new Error("Access to this API has been restricted"), { code: "ERR_ACCESS_DENIED", permission, resource });

  it("names the permission and the path, and points at the host policy", () => {
    expect(describeThrown(refusal("FileSystemRead", "/etc/passwd"))).toBe(
      `Access to this API has been restricted: the host's sandbox policy refused reading '/etc/passwd' (FileSystemRead). ` +
        `A sandboxed tool may read only its own bundle and its run's workspace (ctx.getSandbox().workspace); see "What a sandboxed tool may use" in docs/host-policy.md.`,
    );
    expect(describeThrown(refusal("ChildProcess", ""))).toBe(
      `Access to this API has been restricted: the host's sandbox policy refused starting a child process (ChildProcess). ` +
        `Run commands with ctx.getSandbox().exec(...); see "What a sandboxed tool may use" in docs/host-policy.md.`,
    );
    expect(describeThrown(refusal("Wasi", ""))).toBe(`Access to this API has been restricted: the host's sandbox policy refused Wasi. See "What a sandboxed tool may use" in docs/host-policy.md.`);
  });

  it("explains a refusal that is another error's cause", () => {
    const wrapped = new Error("could not save the report", { cause: refusal("FileSystemWrite", "/srv/out.txt") });
    expect(describeThrown(wrapped)).toMatch(/^could not save the report \(cause: Access to this API has been restricted: the host's sandbox policy refused writing '\/srv\/out.txt' \(FileSystemWrite\)\. /);
  });

  // Review: the fallback after a throwing getter read the same getter again, and threw out of
  // describeThrown (in a tool's own process, but a hostile thrown value is the normal case there).
  it("never throws for a thrown value whose message or cause getter throws", () => {
    const hostile = Object.defineProperty(new Error("x"), "message", { get() { throw new Error("no message for you"); } });
    expect(describeThrown(hostile)).toBe("a thrown value whose message could not be read");
    const badCause = Object.defineProperty(new Error("outer"), "cause", { get() { throw new Error("no cause"); } });
    expect(describeThrown(badCause)).toBe("outer");
  });
});
