/**
 * The file-backed bridge (seed "Execution Model"; issue 4 item 4): each message is a JSON
 * envelope published by atomic replacement — written to a uniquely named temporary file, then
 * renamed to its final unique name — so a reader never observes a partially written frame,
 * however large. A one-line "doorbell" (`<name> <bytes>\n`: the envelope's file name and its
 * length in bytes) then tells the other side which file to read; the doorbell never carries the
 * envelope itself.
 *
 * The path of one envelope is three system calls on the writer's side before the doorbell
 * (write into an already open temporary file, rename, doorbell) and three on the reader's
 * (open, read, close). Everything else — closing the written file, unlinking the envelopes
 * this side has read, opening the next temporary file — is housekeeping done right after the
 * doorbell rang, while the other side handles the message. (Measured against doing it before
 * publishing and from `setImmediate`: same median, the lowest p90, and no extra event-loop
 * turn.) A side's read envelopes are therefore unlinked at its next publish; a crash leaves
 * at most a few spent files in the bridge directory, which is removed with its worker.
 *
 * Both the host and the sandbox child use this module, so it imports only `node:` built-ins.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Which side wrote an envelope: `h` host → child, `c` child → host. */
export type BridgeSide = "h" | "c";

const ENVELOPE_NAME = /^([hc])-(\d{1,15})\.json$/;
const DOORBELL_LINE = /^(\S+) (\d{1,15})$/;
/** Initial size of the reusable read buffer; it grows to the largest envelope read. */
const READ_BUFFER_BYTES = 64 * 1024;

/** A temporary file opened ahead of time for the next envelope. */
interface SpareFile {
  readonly name: string;
  readonly temporary: string;
  readonly fd: number;
}

/**
 * One side of a bridge directory. {@link publish} writes this side's envelopes;
 * {@link take} reads the other side's.
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

  /**
   * @param dir the bridge directory, shared by both sides (created by the host).
   * @param side this side's prefix; envelopes of the other prefix are the only ones accepted.
   * @param ring sends a doorbell line (`<name> <bytes>\n`) for a published envelope.
   */
  constructor(
    readonly dir: string,
    private readonly side: BridgeSide,
    private readonly ring: (line: string) => void,
  ) {
    this.prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  }

  /**
   * Publishes `message` as a new envelope and rings the doorbell. Synchronous, so messages are
   * published in call order. Throws {@link EnvelopeTooLargeError} (nothing written) when the
   * envelope's JSON exceeds `maxBytes`, and the file system's error when the file cannot be
   * written (the caller decides whether that is a control-plane or a call failure).
   */
  publish(message: unknown, maxBytes?: number): void {
    const text = JSON.stringify(message);
    if (maxBytes !== undefined && text.length > maxBytes / 3) {
      const bytes = Buffer.byteLength(text, "utf8");
      if (bytes > maxBytes) throw new EnvelopeTooLargeError(bytes, maxBytes);
    }
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
    this.ring(`${file.name} ${bytes}\n`);
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
      fs.rmSync(this.spare.temporary, { force: true });
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

/** Splits doorbell bytes into complete lines, keeping a partial tail. */
export class DoorbellReader {
  private buffered = "";

  /** Adds received bytes; returns the complete, non-empty lines in order. */
  push(chunk: string): string[] {
    this.buffered += chunk;
    const lines = this.buffered.split("\n");
    this.buffered = lines.pop() ?? "";
    return lines.filter((line) => line !== "");
  }
}
