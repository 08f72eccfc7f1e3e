/**
 * Issue 14 item 2: `socketSender`, the bridge's `send` over the doorbell socket. A message is
 * written straight to the socket's descriptor while the stream holds nothing; what the socket
 * cannot take at once goes through the stream, and every later message follows it there, so the
 * bytes stay in order and the peer's `FrameReader` still sees every frame whole, in order (the
 * seed's "without observing a partially written JSON frame").
 */
import { spawn } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EnvelopeBridge, FrameReader, socketSender, type Frame } from "../../runtime-min/sandbox/bridge.js";
import { descriptorOf } from "../../runtime-min/sandbox/sandbox-spawn.js";
import { tempDir } from "../helpers/temp-tree.js";

const open: net.Socket[] = [];
const servers: net.Server[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

/** A connected pair of Unix stream sockets: `writer` (this side) and `reader` (the peer), paused. */
async function socketPair(): Promise<{ writer: net.Socket; reader: net.Socket; fd: number }> {
  const address = path.join(tempDir("al-sender-"), "s");
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(address, resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
  const writer = net.connect(address);
  await new Promise<void>((resolve) => writer.once("connect", resolve));
  const reader = await accepted;
  reader.pause();
  open.push(writer, reader);
  const fd = (writer as unknown as { _handle: { fd: number } })._handle.fd;
  expect(fd).toBeGreaterThan(2);
  return { writer, reader, fd };
}

/** Reads `reader` until it ends (after `writer.end()`), returning its frames' texts. */
function framesOf(reader: net.Socket): Promise<string[]> {
  const frames = new FrameReader(64 * 1024 * 1024);
  const texts: string[] = [];
  return new Promise((resolve, reject) => {
    reader.on("data", (chunk: Buffer) => {
      for (const frame of frames.push(chunk) as Frame[]) texts.push(frame.kind === "inline" ? frame.text : frame.line);
    });
    reader.on("end", () => (frames.partial ? reject(new Error("the stream ended mid-frame")) : resolve(texts)));
    reader.on("error", reject);
    reader.resume();
  });
}

/** Counts the messages that went through the stream instead of straight to the descriptor. */
function countStreamWrites(socket: net.Socket): { count: number } {
  const counter = { count: 0 };
  const write = socket.write.bind(socket) as (data: string | Uint8Array) => boolean;
  socket.write = ((data: string | Uint8Array) => {
    counter.count += 1;
    return write(data);
  }) as typeof socket.write;
  return counter;
}

describe("socketSender", () => {
  it("writes each message straight to the socket's descriptor while the stream holds nothing", async () => {
    const { writer, reader, fd } = await socketPair();
    const viaStream = countStreamWrites(writer);
    const bridge = new EnvelopeBridge(tempDir("al-sender-"), "h", socketSender(writer, fd), { inlineMaxBytes: 64 * 1024 });
    const messages = [{ kind: "call", id: 1, input: { message: "héllo 𝄞" } }, { kind: "call", id: 2 }, { kind: "ctx_result", id: 3, ok: true }];
    for (const message of messages) bridge.publish(message);
    // Without the direct write every message is a stream write.
    expect(viaStream.count).toBe(0);
    writer.end();
    expect(await framesOf(reader)).toEqual(messages.map((message) => JSON.stringify(message)));
    bridge.close();
  });

  it("once the socket is full, the rest goes through the stream and every frame arrives whole and in order", async () => {
    const { writer, reader, fd } = await socketPair();
    const viaStream = countStreamWrites(writer);
    const bridge = new EnvelopeBridge(tempDir("al-sender-"), "h", socketSender(writer, fd), { inlineMaxBytes: 64 * 1024 });
    // Far more than a Unix socket buffers while its peer does not read: some writes come up
    // short or fail with EAGAIN. Multi-byte characters, so a short write can cut one.
    const messages = Array.from({ length: 120 }, (_, id) => ({ kind: "call", id, input: { text: `${id}é`.repeat(6000 + id) } }));
    for (const message of messages) bridge.publish(message);
    expect(viaStream.count).toBeGreaterThan(0);
    expect(writer.writableLength).toBeGreaterThan(0);
    writer.end();
    expect(await framesOf(reader)).toEqual(messages.map((message) => JSON.stringify(message)));
    bridge.close();
  });

  it("after the stream drained, messages go straight to the descriptor again", async () => {
    const { writer, reader, fd } = await socketPair();
    const send = socketSender(writer, fd);
    send("i 2\n{}");
    const big = "x".repeat(4 * 1024 * 1024);
    send(`i ${big.length + 2}\n"${big}"`);
    expect(writer.writableLength).toBeGreaterThan(0);
    const texts = framesOf(reader);
    await new Promise<void>((resolve) => writer.once("drain", resolve));
    expect(writer.writableLength).toBe(0);
    const viaStream = countStreamWrites(writer);
    send(`i 4\n"ok"`);
    expect(viaStream.count).toBe(0);
    writer.end();
    expect(await texts).toEqual(["{}", `"${big}"`, '"ok"']);
  });

  it("without a descriptor, every message goes through the stream", async () => {
    const { writer, reader } = await socketPair();
    const viaStream = countStreamWrites(writer);
    const send = socketSender(writer, undefined);
    send(`i 2\n{}`);
    expect(viaStream.count).toBe(1);
    writer.end();
    expect(await framesOf(reader)).toEqual(["{}"]);
  });

  it("the host finds the descriptor of a sandbox child's doorbell (fd 3 of the child), so it writes to it directly", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 10000)"], { stdio: ["pipe", "pipe", "pipe", "pipe"] });
    try {
      const fd = descriptorOf(child.stdio[3] as net.Socket);
      expect(Number.isInteger(fd)).toBe(true);
      expect(fd).toBeGreaterThan(2);
    } finally {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
