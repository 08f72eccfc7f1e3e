/**
 * helper-89's review of 6 December, finding 7: `state.db` grew without a bound through
 * `ctx.step` (64 MiB values, any number of them: 336 MB in 46 s) and events. A step's key,
 * value and metadata are bounded by `maxResultBytes`, and a run's stored steps and events by
 * `maxRunStateBytes`; the tool's `ctx.step`/`ctx.emit` rejects with the message, and nothing
 * of the refused record is stored. A step the host stored as sent is not sent back.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { hostLimitArgs, parseHostLimitFlags } from "../../cli/commands/call-flags.js";
import { formatCallResult } from "../../cli/format-call-result.js";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { EnvelopeBridge } from "../../runtime-min/sandbox/bridge.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([
    { name: "big_steps", file: "state-filler.ts", factory: "bigSteps" },
    { name: "many_events", file: "state-filler.ts", factory: "manyEvents" },
  ]);
  runtime = await openRuntime({ root: agent.root, maxResultBytes: 10_000, maxRunStateBytes: 40_000 });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("a step's size", () => {
  it("a step value over maxResultBytes is refused to the tool, and not stored", async () => {
    const result = await runtime.call({ tool: "big_steps", input: { count: 2, chars: 20_000 }, runId: "big-step" });
    expect(result.status).toBe("ok");
    const outcomes = (result.output as { outcomes: string[] }).outcomes;
    expect(outcomes).toHaveLength(2);
    for (const outcome of outcomes) expect(outcome).toMatch(/^The step 'step-\d' is 2\d{4} bytes of JSON \(key, value and metadata\), over the host's limit of 10000 bytes per step \(maxResultBytes\), so it was not recorded\./);
    expect(runtime.events("big-step").filter((event) => event.type === "durable_step.recorded")).toEqual([]);
  });

  it("step metadata counts too", async () => {
    const result = await runtime.call({ tool: "big_steps", input: { count: 1, chars: 10, metadataChars: 20_000 }, runId: "big-metadata" });
    expect((result.output as { outcomes: string[] }).outcomes[0]).toMatch(/over the host's limit of 10000 bytes per step/);
  });
});

describe("a run's stored state (maxRunStateBytes)", () => {
  it("steps past the run's budget are refused; those before it are kept", async () => {
    const input = { count: 6, chars: 8_000 };
    const first = await runtime.call({ tool: "big_steps", input, runId: "budget" });
    const outcomes = (first.output as { outcomes: (number | string)[] }).outcomes;
    // 4 × ~8 KB fit in 40 000 bytes with the run's own events; the fifth does not.
    expect(outcomes.slice(0, 4)).toEqual([8000, 8000, 8000, 8000]);
    for (const outcome of outcomes.slice(4)) expect(outcome).toMatch(/^The run 'budget' already stores \d+ bytes of steps and events; the step 'step-[45]' \(\d+ bytes\) would take it over the host's limit of 40000 bytes per run \(maxRunStateBytes\), so it was not recorded\./);
    expect(runtime.events("budget").filter((event) => event.type === "durable_step.recorded")).toHaveLength(4);
  });

  it("events past the run's budget are refused too, and the budget holds across calls of the run", async () => {
    const first = await runtime.call({ tool: "many_events", input: { count: 3, chars: 10_000 }, runId: "budget-events" });
    expect((first.output as { outcomes: string[] }).outcomes).toEqual(["ok", "ok", "ok"]);
    const second = await runtime.call({ tool: "many_events", input: { count: 2, chars: 10_000 }, runId: "budget-events" });
    const outcomes = (second.output as { outcomes: string[] }).outcomes;
    for (const outcome of outcomes) expect(outcome).toMatch(/^The run 'budget-events' already stores \d+ bytes of steps and events; the event 'fill\.event' \(\d+ bytes\) would take it over the host's limit of 40000 bytes per run \(maxRunStateBytes\), so it was not recorded\./);
    expect(runtime.events("budget-events").filter((event) => event.type === "fill.event")).toHaveLength(3);
  });

  it("another runtime on the same state database counts what the run already stores", async () => {
    const other = await openRuntime({ root: agent.root, maxResultBytes: 10_000, maxRunStateBytes: 40_000 });
    try {
      await runtime.call({ tool: "many_events", input: { count: 3, chars: 10_000 }, runId: "budget-reopened" });
      await runtime.close();
      const result = await other.call({ tool: "many_events", input: { count: 1, chars: 10_000 }, runId: "budget-reopened" });
      expect((result.output as { outcomes: string[] }).outcomes[0]).toMatch(/maxRunStateBytes/);
    } finally {
      await other.close();
      runtime = await openRuntime({ root: agent.root, maxResultBytes: 10_000, maxRunStateBytes: 40_000 });
    }
  });
});

describe("a step stored as sent", () => {
  it("is not sent back to the tool (the host answers that it kept the value), and the tool still gets its value", async () => {
    const publish = vi.spyOn(EnvelopeBridge.prototype, "publish");
    try {
      const result = await runtime.call({ tool: "big_steps", input: { count: 1, chars: 5_000, prefix: "echo" }, runId: "no-echo" });
      expect(result.output).toEqual({ outcomes: [5000] });
      const replies = publish.mock.calls.map(([message]) => message as { kind?: string; value?: unknown }).filter((message) => message.kind === "ctx_result");
      const stepReply = replies.find((message) => typeof message.value === "object" && message.value !== null && "kept" in message.value);
      expect(stepReply?.value).toEqual({ kept: true });
      expect(JSON.stringify(replies)).not.toContain("s".repeat(5_000));
    } finally {
      publish.mockRestore();
    }
  });
});

describe("the --max-run-state-bytes flag", () => {
  it("sets maxRunStateBytes; a value out of range is AL8062 naming the flag", () => {
    expect(parseHostLimitFlags({ maxRunStateBytes: "1000" })).toEqual({ maxRunStateBytes: 1000 });
    expect(() => parseHostLimitFlags({ maxRunStateBytes: "0" })).toThrow(/--max-run-state-bytes '0' is not valid: it must be a whole number of bytes from 1 to 1099511627776 \(1 TiB\)/);
    expect(hostLimitArgs({ maxRunStateBytes: "1000" })).toEqual(["--max-run-state-bytes", "1000"]);
  });
});

describe("a step key with control characters (finding 6 for step keys)", () => {
  it("reaches call's output only as pictures: in the replay event, in a refusal, in the tool's output", async () => {
    // OSC title, clear screen, 8-bit CSI, DEL and CR: what a key could use to rewrite the terminal.
    const prefix = "\u001b]0;PWN\u0007\u001b[2J\u009b1A\u007f\r";
    const recorded = await runtime.call({ tool: "big_steps", input: { count: 1, chars: 10, prefix }, runId: "control-key" });
    const replayed = await runtime.call({ tool: "big_steps", input: { count: 1, chars: 10, prefix }, runId: "control-key" });
    const refused = await runtime.call({ tool: "big_steps", input: { count: 1, chars: 20_000, prefix }, runId: "control-key-big" });
    expect(replayed.events.map((event) => event.type)).toContain("durable_step.replayed");
    expect((refused.output as { outcomes: string[] }).outcomes[0]).toContain(`The step '${prefix}-0' is`);
    for (const result of [recorded, replayed, refused]) {
      const text = formatCallResult(result);
      expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/);
    }
    expect(formatCallResult(replayed)).toContain("\u2421"); // DEL's picture: JSON does not escape it
    expect(formatCallResult(refused)).toContain("\uFFFD"); // the 8-bit CSI's
  });
});
