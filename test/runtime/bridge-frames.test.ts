/**
 * Issue 14 item 2: the bridge's inline frames (`i <bytes>\n<JSON>`) next to its file envelopes.
 * A frame is returned only once all of its bytes arrived, however the stream is chunked, so a
 * reader never observes a partially written JSON frame (seed "Execution Model"); small messages
 * go inline, large ones and every file exchange through files; and what a hostile writer can
 * make the reader hold is bounded.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { EnvelopeBridge, FrameError, FrameReader, INLINE_FRAME_MAX_BYTES, MAX_HEADER_BYTES, type Frame } from "../../runtime-min/sandbox/bridge.js";
import { tempDir } from "../helpers/temp-tree.js";

/** What a frame carries: an inline frame's JSON text, or a doorbell line. */
const carried = (frame: Frame) => (frame.kind === "inline" ? frame.text : frame.line);

/** A stream of frames as a sender writes it, with where each frame ends (byte offsets). */
function stream(): { bytes: Buffer; ends: number[]; expected: string[] } {
  const dir = tempDir("al-frames-");
  const sent: Buffer[] = [];
  const sender = new EnvelopeBridge(dir, "c", (data) => sent.push(Buffer.from(data, "utf8")), { inlineMaxBytes: 200 });
  const messages = [
    { kind: "ready", pid: 1 },
    // Multi-byte characters, so a chunk boundary can fall inside one.
    { kind: "result", id: 1, ok: true, output: { message: "héllo ✓ 𝄞 — 日本語" } },
    { kind: "result", id: 2, ok: true, output: { message: "x".repeat(300) } }, // over 200: a file envelope
    { kind: "ctx", id: 1, callId: 3, operation: { op: "emit", type: "a", data: {} } },
  ];
  for (const message of messages) sender.publish(message);
  const expected = [JSON.stringify(messages[0]), JSON.stringify(messages[1]), sent[2]!.toString("utf8").trimEnd(), JSON.stringify(messages[3])];
  const ends: number[] = [];
  let at = 0;
  for (const chunk of sent) ends.push((at += chunk.length));
  return { bytes: Buffer.concat(sent), ends, expected };
}

describe("inline frames", () => {
  it("small messages go inline as `i <bytes>\\n<JSON>` in one write; large ones and file exchanges as file envelopes", () => {
    const dir = tempDir("al-frames-");
    const sent: string[] = [];
    const host = new EnvelopeBridge(dir, "h", (data) => sent.push(data), { inlineMaxBytes: 64 });
    host.publish({ kind: "call", id: 1, input: "é" });
    expect(sent).toEqual([`i ${Buffer.byteLength('{"kind":"call","id":1,"input":"é"}')}\n{"kind":"call","id":1,"input":"é"}`]);
    expect(fs.readdirSync(dir)).toEqual([]);
    // 64 characters of JSON that are more than 64 bytes of UTF-8: a file envelope.
    host.publish({ s: "é".repeat(29) });
    host.publish({ kind: "ctx_result", id: 1, ok: true, value: "tiny" }, { viaFile: true });
    expect(sent.slice(1)).toEqual([expect.stringMatching(/^h-1\.json \d+\n$/), expect.stringMatching(/^h-2\.json \d+\n$/)]);
    const child = new EnvelopeBridge(dir, "c", () => undefined);
    expect(child.take(sent[2]!.trim())).toEqual({ kind: "ctx_result", id: 1, ok: true, value: "tiny" });
    host.close();
    child.close();
  });

  it("the host and its child use a 64 KiB inline limit; a bridge made without one sends only files", () => {
    expect(INLINE_FRAME_MAX_BYTES).toBe(64 * 1024);
    const sent: string[] = [];
    const fileOnly = new EnvelopeBridge(tempDir("al-frames-"), "h", (data) => sent.push(data));
    fileOnly.publish({ small: true });
    expect(sent).toEqual(["h-1.json 14\n"]);
    fileOnly.close();
  });

  it("a frame is never returned before its last byte arrived, at every split of the stream", () => {
    const { bytes, ends, expected } = stream();
    // Every split into two chunks.
    for (let cut = 0; cut <= bytes.length; cut++) {
      const reader = new FrameReader(200);
      const first = reader.push(bytes.subarray(0, cut)).map(carried);
      expect(first).toEqual(expected.slice(0, ends.filter((end) => end <= cut).length));
      expect([...first, ...reader.push(bytes.subarray(cut)).map(carried)]).toEqual(expected);
      expect(reader.partial).toBeUndefined();
    }
    // One byte at a time: each frame appears exactly when its last byte does.
    const reader = new FrameReader(200);
    const seen: string[] = [];
    for (let at = 0; at < bytes.length; at++) {
      seen.push(...reader.push(bytes.subarray(at, at + 1)).map(carried));
      expect(seen).toEqual(expected.slice(0, ends.filter((end) => end <= at + 1).length));
    }
    // Random chunkings (seeded).
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 200; round++) {
      const chunked = new FrameReader(200);
      const out: string[] = [];
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + (next() % 40);
        out.push(...chunked.push(bytes.subarray(at, at + size)).map(carried));
        at += size;
      }
      expect(out).toEqual(expected);
    }
  });

  it("reports the incomplete frame it holds (for the diagnostic of a frame that never ends)", () => {
    const reader = new FrameReader();
    expect(reader.push(Buffer.from("i 1"))).toEqual([]);
    expect(reader.partial).toEqual({ received: 3, announced: undefined });
    expect(reader.push(Buffer.from("1\n{\"a\":"))).toEqual([]);
    expect(reader.partial).toEqual({ received: 5, announced: 11 });
    expect(reader.push(Buffer.from("[1,2]"))).toEqual([]);
    expect(reader.partial).toEqual({ received: 10, announced: 11 });
    expect(reader.push(Buffer.from("}"))).toEqual([{ kind: "inline", text: '{"a":[1,2]}', bytes: 11 }]);
    expect(reader.partial).toBeUndefined();
  });

  it("refuses what a hostile writer can send, holding at most one header plus the inline limit", () => {
    const refuse = (text: string, message: string | RegExp, limit = 100) => {
      expect(() => new FrameReader(limit).push(Buffer.from(text))).toThrow(message);
    };
    refuse("x".repeat(MAX_HEADER_BYTES + 1), `header line longer than ${MAX_HEADER_BYTES} bytes`);
    refuse(`${"x".repeat(MAX_HEADER_BYTES + 1)}\n`, `header line longer than ${MAX_HEADER_BYTES} bytes`);
    refuse("i 101\n", "an inline frame of 101 bytes, over the limit of 100 bytes");
    refuse("i -1\n", "which is neither a doorbell nor an inline frame header");
    refuse("\n", "which is neither a doorbell nor an inline frame header");
    refuse("hello\u0000\u001b[2J\n", "'hello\\u0000\\u001b[2J', which is neither");
    refuse("i 99999999999999999\n", "neither a doorbell nor an inline frame header");
    expect(new FrameError("x")).toBeInstanceOf(Error);
    // An endless header is refused as soon as it passes the limit, whatever the chunking.
    const reader = new FrameReader(100);
    for (let i = 0; i < MAX_HEADER_BYTES; i++) reader.push(Buffer.from("x"));
    expect(() => reader.push(Buffer.from("x"))).toThrow(FrameError);
    // A payload trickled a byte at a time is held, not copied per byte, and completes once.
    const trickle = new FrameReader(100);
    trickle.push(Buffer.from("i 100\n"));
    for (let i = 0; i < 99; i++) expect(trickle.push(Buffer.from("a"))).toEqual([]);
    expect(trickle.partial).toEqual({ received: 99, announced: 100 });
    expect(trickle.push(Buffer.from("a"))).toEqual([{ kind: "inline", text: "a".repeat(100), bytes: 100 }]);
  });
});
