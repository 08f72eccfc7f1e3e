/**
 * The host ↔ sandbox bridge (seed "Execution Model"; issue 4 item 4, issue 14 item 2). Every
 * message is one JSON envelope, delivered whole or not at all — a reader never observes a
 * partially written frame — in one of two ways, both over the doorbell socket (fd 3 of the
 * child, a Unix stream socket) and both in the order published:
 *
 * - **File envelope** (`<name> <bytes>\n`): the envelope is published by atomic replacement —
 *   written to a uniquely named temporary file, then renamed to its final unique name — and only
 *   then does a one-line "doorbell" name the file and its length in bytes. The reader opens the
 *   final name, which only ever holds a complete file. Used for every message over the inline
 *   limit (large payloads) and, whatever its size, for every `ctx.getSandbox()` file exchange
 *   (the seed's "large file contents through ctx.getSandbox()"; see `exchangesFileContents` in
 *   `./protocol.ts`).
 * - **Inline frame** (`i <bytes>\n<bytes of JSON>`): a small message (at most
 *   {@link INLINE_FRAME_MAX_BYTES}, when the bridge was created with an inline limit) travels on
 *   the socket itself, length-prefixed, written with one `write` while the socket has room (what
 *   it cannot take follows in order: {@link socketSender}). The {@link FrameReader} parses
 *   a frame only once all its announced bytes have arrived, however the stream splits them, so
 *   an inline frame is never seen partially either.
 *
 * The reader side is hostile-input safe: a header line longer than {@link MAX_HEADER_BYTES}, a
 * header that is neither form, an inline frame announced over the limit, or bytes that are not
 * JSON throw a {@link FrameError}; the memory held for one frame is bounded by the inline limit.
 *
 * The path of one file envelope is three system calls on the writer's side before the doorbell
 * (write into an already open temporary file, rename, doorbell) and three on the reader's
 * (open, read, close). Everything else — closing the written file, unlinking the envelopes
 * this side has read, opening the next temporary file — is housekeeping done right after the
 * doorbell rang, while the other side handles the message. A side's read envelopes are
 * therefore unlinked at its next publish; a crash leaves at most a few spent files (and
 * possibly one temporary file that was never renamed, which no doorbell names) in the bridge
 * directory, which is removed with its worker. An inline frame costs one `write` and no file
 * system call (measured in docs/runtime.md, "The bridge and durability").
 *
 * Both the host and the sandbox child use this module, so it imports only `node:` built-ins.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Which side wrote an envelope: `h` host → child, `c` child → host. */
export type BridgeSide = "h" | "c";

const ENVELOPE_NAME = /^([hc])-(\d{1,15})\.json$/;
const DOORBELL_LINE = /^(\S+) (\d{1,15})$/;
const INLINE_HEADER = /^i (\d{1,15})$/;

/**
 * Largest message sent inline on the doorbell socket, in bytes of JSON (64 KiB: an echo call is
 * a few hundred bytes; a larger message, or any file exchange, goes through a file envelope).
 */
export const INLINE_FRAME_MAX_BYTES = 64 * 1024;
/** Longest header line a reader accepts (a file doorbell or an inline frame's), newline excluded. */
export const MAX_HEADER_BYTES = 64;
/** Initial size of the reusable read buffer; it grows to the largest envelope read. */
const READ_BUFFER_BYTES = 64 * 1024;

/** A temporary file opened ahead of time for the next envelope. */
interface SpareFile {
  readonly name: string;
  readonly temporary: string;
  readonly fd: number;
}

/** How {@link EnvelopeBridge.publish} sends one message. */
export interface PublishOptions {
  /** Refuse (throw {@link EnvelopeTooLargeError}, nothing sent) a message over this many bytes of JSON. */
  readonly maxBytes?: number;
  /** Always use a file envelope, whatever the size (`ctx.getSandbox()` file exchange). */
  readonly viaFile?: boolean;
}

/** Options of an {@link EnvelopeBridge}. */
export interface BridgeOptions {
  /**
   * Largest message sent as an inline frame, in bytes of JSON; 0 (the default) sends every
   * message as a file envelope. The host and its child use {@link INLINE_FRAME_MAX_BYTES}.
   */
  readonly inlineMaxBytes?: number;
}

/**
 * One side of a bridge directory. {@link publish} sends this side's messages (inline frames or
 * file envelopes); {@link take} reads the other side's file envelopes, and {@link FrameReader}
 * splits the socket's bytes into frames.
 */
export class EnvelopeBridge {
  private sequence = 0;
  private spare: SpareFile | undefined;
  private readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  /** Paths of envelopes read, unlinked by housekeeping. */
  private readonly consumed: string[] = [];
  private closed = false;
  /**
   * `dir` and a separator: file names are checked against {@link ENVELOPE_NAME} (or made
   * here), so plain concatenation is safe and spares `path.join`'s normalisation per message.
   */
  private readonly prefix: string;
  private readonly inlineMaxBytes: number;

  /**
   * @param dir the bridge directory, shared by both sides (created by the host).
   * @param side this side's prefix; envelopes of the other prefix are the only ones accepted.
   * @param send writes bytes on the doorbell socket: a doorbell line (`<name> <bytes>\n`) for
   *   a published file envelope, or a whole inline frame (`i <bytes>\n<JSON>`) in one call.
   * @param options the inline limit (default: file envelopes only).
   */
  constructor(
    readonly dir: string,
    private readonly side: BridgeSide,
    private readonly send: (data: string) => void,
    options: BridgeOptions = {},
  ) {
    this.prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    this.inlineMaxBytes = Math.max(0, Math.floor(options.inlineMaxBytes ?? 0));
  }

  /**
   * Sends `message`: as one inline frame when its JSON fits the bridge's inline limit and
   * `options.viaFile` is not set, otherwise as a new file envelope and its doorbell.
   * Synchronous, so messages are sent in call order. Throws {@link EnvelopeTooLargeError}
   * (nothing sent) when the JSON exceeds `options.maxBytes`, and the file system's error when
   * an envelope cannot be written (the caller decides whether that is a control-plane or a call
   * failure).
   */
  publish(message: unknown, options: PublishOptions = {}): void {
    const text = JSON.stringify(message);
    const { maxBytes } = options;
    // Bytes of UTF-8 are at most 3 per UTF-16 code unit, and at least 1.
    let size = -1;
    if (maxBytes !== undefined && text.length > maxBytes / 3) {
      size = Buffer.byteLength(text, "utf8");
      if (size > maxBytes) throw new EnvelopeTooLargeError(size, maxBytes);
    }
    if (options.viaFile !== true && text.length <= this.inlineMaxBytes) {
      if (size < 0) size = Buffer.byteLength(text, "utf8");
      if (size <= this.inlineMaxBytes) {
        // Header and body in one write: frames never interleave, and arrive in order.
        this.send(`i ${size}\n${text}`);
        if (this.consumed.length > 0) this.housekeep();
        return;
      }
    }
    this.publishFile(text);
  }

  private publishFile(text: string): void {
    const file = this.spare ?? this.openSpare();
    this.spare = undefined;
    let bytes: number;
    try {
      bytes = writeAll(file.fd, text);
      fs.renameSync(file.temporary, this.prefix + file.name);
    } catch (error) {
      closeQuietly(file.fd);
      fs.rmSync(file.temporary, { force: true });
      throw error;
    }
    this.send(`${file.name} ${bytes}\n`);
    closeQuietly(file.fd);
    this.housekeep();
    if (!this.closed) {
      try {
        this.spare = this.openSpare();
      } catch {
        // The next publish opens its file itself and reports the error there.
      }
    }
  }

  /**
   * Reads the envelope a doorbell line (`<name> <bytes>`) named and returns its parsed JSON;
   * the file is unlinked by the housekeeping of this side's next publish (or by
   * {@link close}). Throws on a line that does not name an envelope of the other side (a
   * doorbell cannot point outside the bridge directory), on a file shorter than announced, or
   * on bad JSON.
   */
  take(line: string): unknown {
    const doorbell = DOORBELL_LINE.exec(line);
    const match = doorbell ? ENVELOPE_NAME.exec(doorbell[1] as string) : null;
    if (!doorbell || !match || match[1] === this.side) {
      throw new Error(`The bridge received a doorbell for '${line}', which is not an envelope of the other side.`);
    }
    const file = this.prefix + (doorbell[1] as string);
    const bytes = Number(doorbell[2]);
    if (bytes > this.readBuffer.length) this.readBuffer = Buffer.allocUnsafe(bytes);
    const fd = fs.openSync(file, "r");
    try {
      let read = 0;
      while (read < bytes) {
        const got = fs.readSync(fd, this.readBuffer, read, bytes - read, read);
        if (got === 0) throw new Error(`The bridge envelope '${doorbell[1]}' has ${read} bytes, not the ${bytes} its doorbell announced.`);
        read += got;
      }
    } finally {
      fs.closeSync(fd);
    }
    this.consumed.push(file);
    return JSON.parse(this.readBuffer.toString("utf8", 0, bytes)) as unknown;
  }

  /** Closes open descriptors and unlinks read envelopes now (the side is going away). */
  close(): void {
    this.closed = true;
    this.housekeep();
    if (this.spare) {
      closeQuietly(this.spare.fd);
      // The other side may have made it a folder (host-file review of 5 December, H7b): the bridge
      // folder's own removal takes it then.
      try {
        fs.rmSync(this.spare.temporary, { force: true });
      } catch {
        // Left for the folder's removal.
      }
      this.spare = undefined;
    }
  }

  private openSpare(): SpareFile {
    this.sequence += 1;
    const name = `${this.side}-${this.sequence}.json`;
    const temporary = `${this.prefix}.${name}.tmp`;
    // "wx": a fresh file of our own; an existing one (a planted link, say) is an error.
    return { name, temporary, fd: fs.openSync(temporary, "wx", 0o600) };
  }

  /** Unlinks the envelopes this side has read. */
  private housekeep(): void {
    for (const file of this.consumed.splice(0)) {
      try {
        fs.unlinkSync(file);
      } catch {
        // Already gone (the directory is being removed); nothing to reclaim.
      }
    }
  }
}

/** What {@link socketSender} needs of the socket it writes to (a `net.Socket`). */
export interface SenderSocket {
  /** Bytes the stream still holds or is writing (Node's `writable.writableLength`). */
  readonly writableLength: number;
  /** False once the stream has ended or been destroyed (Node's `writable.writable`). */
  readonly writable: boolean;
  /** Queues `data` on the stream (Node's `writable.write`). */
  write(data: string | Uint8Array): boolean;
}

/**
 * The bridge's `send` over a stream socket whose file descriptor is `fd` (issue 14 item 2): each
 * message is written straight to the descriptor with one `write(2)` (`fs.writeSync`) while the
 * stream holds nothing, and through the stream otherwise. A direct write skips the stream's
 * write request, its completion callback and the extra event-loop turn that completion costs
 * (one `epoll_wait` per message on each side), which a stream write pays even when the kernel
 * took every byte at once.
 *
 * Bytes stay in order, so frames never interleave: a direct write happens only when the stream
 * holds nothing; whatever a direct write could not place (the socket's buffer is full:
 * `EAGAIN`, or a short write) goes to the stream, and every later message follows it there
 * until the stream has drained. A frame split between the two is still one frame in order on
 * the socket — the reader (`FrameReader`) returns a frame only once all its bytes have arrived,
 * however they were cut. Any other error (the peer went away) is left to the stream, which
 * reports it as before. Without a descriptor (`undefined`) every message goes to the stream.
 */
export function socketSender(socket: SenderSocket, fd: number | undefined): (data: string) => void {
  if (fd === undefined) return (data) => void socket.write(data);
  return (data) => {
    if (socket.writableLength > 0 || !socket.writable) {
      socket.write(data);
      return;
    }
    let written: number;
    try {
      written = fs.writeSync(fd, data);
    } catch {
      // EAGAIN (full) or a broken socket: the stream queues the message or reports the error.
      socket.write(data);
      return;
    }
    if (written < Buffer.byteLength(data, "utf8")) socket.write(Buffer.from(data, "utf8").subarray(written));
  };
}

/** Thrown by {@link EnvelopeBridge.publish} for an envelope over its byte limit. */
export class EnvelopeTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`The envelope is ${bytes} bytes, over the limit of ${limit} bytes.`);
    this.name = "EnvelopeTooLargeError";
  }
}

/** Writes all of `text` at the start of `fd`; returns its length in bytes. */
function writeAll(fd: number, text: string): number {
  const total = Buffer.byteLength(text, "utf8");
  let written = fs.writeSync(fd, text, 0, "utf8");
  if (written < total) {
    const bytes = Buffer.from(text, "utf8");
    while (written < total) written += fs.writeSync(fd, bytes, written, total - written, written);
  }
  return total;
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed.
  }
}

/** One complete frame read from the doorbell socket. */
export type Frame =
  /** A file envelope's doorbell line (`<name> <bytes>`, without the newline): pass it to {@link EnvelopeBridge.take}. */
  | { readonly kind: "file"; readonly line: string; readonly bytes: number }
  /** An inline frame's JSON text, complete. */
  | { readonly kind: "inline"; readonly text: string; readonly bytes: number };

/** The other side broke the framing: the reader is unusable from here on (the sender is not trusted further). */
export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

/**
 * Splits the doorbell socket's bytes into {@link Frame}s: doorbell lines of file envelopes and
 * length-prefixed inline frames. A frame is returned only once all of it has arrived, whatever
 * the chunking of the stream (a header split anywhere, a UTF-8 character split between two
 * chunks). Throws {@link FrameError} on a header over {@link MAX_HEADER_BYTES}, a header that is
 * neither form, or an inline frame announced over the inline limit; so the bytes it holds never
 * exceed the inline limit plus one header.
 */
export class FrameReader {
  /** Bytes received and not yet returned as a frame (joined once the frame is complete). */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Length of the inline payload awaited; -1 while a header is awaited. */
  private awaiting = -1;

  /** @param inlineMaxBytes the largest inline frame accepted (as the sender's bridge was created). */
  constructor(private readonly inlineMaxBytes: number = INLINE_FRAME_MAX_BYTES) {}

  /** Adds received bytes; returns the frames they completed, in order. */
  push(chunk: Buffer): Frame[] {
    if (this.awaiting >= 0 && this.heldBytes + chunk.length < this.awaiting) {
      // Still short of the payload: keep the chunk, copy nothing (a trickle costs linear time).
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      return [];
    }
    const data = this.held.length > 0 ? Buffer.concat([...this.held, chunk]) : chunk;
    this.held = [];
    this.heldBytes = 0;
    const frames: Frame[] = [];
    let at = 0;
    while (at < data.length) {
      if (this.awaiting >= 0) {
        const end = at + this.awaiting;
        if (end > data.length) break;
        frames.push({ kind: "inline", text: data.toString("utf8", at, end), bytes: this.awaiting });
        this.awaiting = -1;
        at = end;
        continue;
      }
      const newline = data.indexOf(10, at);
      const headerEnd = newline === -1 ? data.length : newline;
      if (headerEnd - at > MAX_HEADER_BYTES) {
        throw new FrameError(`The bridge received a header line longer than ${MAX_HEADER_BYTES} bytes.`);
      }
      if (newline === -1) break;
      const header = data.toString("latin1", at, newline);
      at = newline + 1;
      const inline = INLINE_HEADER.exec(header);
      if (inline) {
        const bytes = Number(inline[1]);
        if (bytes > this.inlineMaxBytes) {
          throw new FrameError(`The bridge received an inline frame of ${bytes} bytes, over the limit of ${this.inlineMaxBytes} bytes.`);
        }
        this.awaiting = bytes;
        continue;
      }
      const doorbell = DOORBELL_LINE.exec(header);
      if (!doorbell) throw new FrameError(`The bridge received '${printable(header)}', which is neither a doorbell nor an inline frame header.`);
      frames.push({ kind: "file", line: header, bytes: Number(doorbell[2]) });
    }
    if (at < data.length) {
      this.held = [data.subarray(at)];
      this.heldBytes = data.length - at;
    }
    return frames;
  }

  /**
   * The frame still incomplete, if any: the bytes of it received so far and, once its header
   * is complete, the payload bytes announced (for the diagnostic of a frame that never ends).
   */
  get partial(): { readonly received: number; readonly announced: number | undefined } | undefined {
    if (this.awaiting >= 0) return { received: this.heldBytes, announced: this.awaiting };
    return this.heldBytes > 0 ? { received: this.heldBytes, announced: undefined } : undefined;
  }
}

/** A header line as shown in a message: control characters escaped, at most 64 characters. */
function printable(text: string): string {
  return JSON.stringify(text.slice(0, 64)).slice(1, -1);
}
