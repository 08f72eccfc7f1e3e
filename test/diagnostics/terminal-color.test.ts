/**
 * When output is coloured (`diagnostics/terminal-color.ts`). A CI run with `CI=true`
 * and `FORCE_COLOR` set once turned the in-process formatters' output into escape codes and
 * broke exact-text assertions, so the formatters now take a palette and default to plain text.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatPretty } from "../../diagnostics/format-pretty.js";
import { colorFor, paletteFor, plainPalette } from "../../diagnostics/terminal-color.js";
import { formatCallResult, formatRefusal } from "../../cli/format-call-result.js";
import type { CallResult } from "../../runtime-min/types.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";

const ESC = "\u001b[";
const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("colorFor", () => {
  it.each([
    ["a TTY", tty, {}, true],
    ["a pipe", pipe, {}, false],
    ["a pipe under CI alone", pipe, { CI: "true" }, false],
    ["a TTY with NO_COLOR", tty, { NO_COLOR: "1" }, false],
    ["a TTY with an empty NO_COLOR", tty, { NO_COLOR: "" }, true],
    ["a pipe with FORCE_COLOR=1", pipe, { FORCE_COLOR: "1" }, true],
    ["a pipe with FORCE_COLOR=true", pipe, { FORCE_COLOR: "true" }, true],
    ["a TTY with FORCE_COLOR=0", tty, { FORCE_COLOR: "0" }, false],
    ["a TTY with FORCE_COLOR=false", tty, { FORCE_COLOR: "false" }, false],
    ["FORCE_COLOR and NO_COLOR together (NO_COLOR wins)", pipe, { FORCE_COLOR: "1", NO_COLOR: "1" }, false],
    ["a TTY with TERM=dumb", tty, { TERM: "dumb" }, false],
  ] as const)("%s → %s", (_label, stream, env, expected) => {
    expect(colorFor(stream, env)).toBe(expected);
  });

  it("paletteFor(false) is the plain palette and adds nothing", () => {
    expect(paletteFor(false)).toBe(plainPalette);
    expect(plainPalette.red("x")).toBe("x");
    expect(paletteFor(true).red("x")).toContain(ESC);
  });
});

describe("formatters called in-process", () => {
  afterEach(() => vi.unstubAllEnvs());

  const result: CallResult = {
    status: "approval_required",
    runId: "r1",
    callId: "c1",
    tool: "record_note",
    approval: { state: "pending", reason: "A durable side effect.", sideEffect: "idempotent" },
    events: [],
  };
  const diagnostic = createDiagnostic(Diagnostics.CallInputNotJson, { file: "", line: 1, column: 1 }, ["Unexpected token"]);

  it("print plain text by default even when the environment forces colour (the CI failure)", () => {
    vi.stubEnv("CI", "true");
    vi.stubEnv("FORCE_COLOR", "3");
    vi.stubEnv("NO_COLOR", "");
    expect(formatCallResult(result)).toContain("approval required record_note (run r1, call c1)");
    expect(formatCallResult(result)).not.toContain(ESC);
    expect(formatRefusal("refused", [diagnostic])).not.toContain(ESC);
    expect(formatPretty([diagnostic])).not.toContain(ESC);
  });

  it("colour only when given a colour palette", () => {
    expect(formatCallResult(result, ".", paletteFor(true))).toContain(ESC);
    expect(formatRefusal("refused", [diagnostic], paletteFor(true))).toContain(ESC);
    expect(formatPretty([diagnostic], { color: true })).toContain(ESC);
  });
});
