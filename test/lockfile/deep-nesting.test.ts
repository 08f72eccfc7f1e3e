import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { checkLockfile } from "../../lockfile/check-lockfile.js";
import { MAX_LOCK_JSON_DEPTH, parseJsonText } from "../../lockfile/json-text.js";
import { readLockfile } from "../../lockfile/read-lockfile.js";
import { serializeLockfile } from "../../lockfile/serialize-lockfile.js";
import { tempDir } from "../helpers/temp-tree.js";
import { sampleLock } from "./helpers.js";

const nested = (depth: number, open = "[", close = "]") => `{"lockfileVersion":1,"x":${open.repeat(depth)}${close.repeat(depth)}}`;

function lockAt(text: string): string {
  const file = path.join(tempDir(), "plugins.lock");
  fs.writeFileSync(file, text);
  return file;
}

describe("a lock nested too deep", () => {
  it("is invalid JSON (AL6005) at the first bracket past the limit, never a stack overflow", () => {
    const result = readLockfile(lockAt(nested(20_000)));
    expect(result.kind).toBe("invalid");
    if (result.kind !== "invalid") return;
    // '{' is level 1 and the arrays start at offset 25: level 257 opens at offset 25 + 255.
    expect(result.diagnostic).toMatchObject({ code: "AL6005", line: 1, column: 281 });
    expect(result.diagnostic.message).toContain(`nesting deeper than ${MAX_LOCK_JSON_DEPTH} levels is not supported`);
  });

  it("counts objects too, ignores brackets inside strings, and skips a byte order mark", () => {
    expect(readLockfile(lockAt(nested(20_000, '{"a":', "}"))).kind).toBe("invalid");
    const inStrings = `{"lockfileVersion":1,"x":"${"[".repeat(5_000)}\\"${"{".repeat(5_000)}"}`;
    const parsed = parseJsonText("plugins.lock", inStrings);
    expect(parsed.ok).toBe(true);
    const withBom = parseJsonText("plugins.lock", `\uFEFF${nested(MAX_LOCK_JSON_DEPTH)}`);
    expect(withBom).toMatchObject({ ok: false, location: { line: 1, column: 281 } });
  });

  it("nesting up to the limit still parses (and the shape error is located)", () => {
    const result = readLockfile(lockAt(nested(MAX_LOCK_JSON_DEPTH - 1)));
    expect(result.kind).toBe("invalid");
    if (result.kind !== "invalid") return;
    expect(result.diagnostic.code).toBe("AL6006");
  });

  it("compile --check's comparison reports it as invalid, without a crash", () => {
    const file = lockAt(nested(20_000));
    const { ok, report } = checkLockfile(file, serializeLockfile(sampleLock()), { displayPath: "plugins.lock", fixCommand: "npx assembly-line compile" });
    expect(ok).toBe(false);
    expect(report.status).toBe("invalid");
    expect(report.diagnostic?.code).toBe("AL6005");
  });
});
