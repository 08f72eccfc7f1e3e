/**
 * The file-backed bridge (seed "Execution Model"; issue 4 item 4): each message is a JSON
 * envelope published by atomic replacement — written to a unique temporary file, then renamed
 * to its final unique name — so a reader never observes a partially written frame, however
 * large. A one-line "doorbell" (the envelope's file name and `\n`) then tells the other side
 * which file to read; the doorbell never carries the envelope itself.
 *
 * Both the host and the sandbox child use this module, so it imports only `node:` built-ins.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Which side wrote an envelope: `h` host → child, `c` child → host. */
export type BridgeSide = "h" | "c";

const ENVELOPE_NAME = /^([hc])-(\d{1,15})\.json$/;

/**
 * One side of a bridge directory. {@link publish} writes this side's envelopes;
 * {@link take} reads (and removes) the other side's.
 */
export class EnvelopeBridge {
  private sequence = 0;

  /**
   * @param dir the bridge directory, shared by both sides (created by the host).
   * @param side this side's prefix; envelopes of the other prefix are the only ones accepted.
   * @param ring sends a doorbell line for a published envelope name.
   */
  constructor(
    readonly dir: string,
    private readonly side: BridgeSide,
    private readonly ring: (line: string) => void,
  ) {}

  /**
   * Publishes `message` as a new envelope and rings the doorbell. Synchronous so messages are
   * published in call order. Throws when the file cannot be written (the caller decides
   * whether that is a control-plane or a call failure).
   */
  publish(message: unknown): void {
    this.sequence += 1;
    const name = `${this.side}-${this.sequence}.json`;
    const final = path.join(this.dir, name);
    const temporary = path.join(this.dir, `.${name}.tmp`);
    fs.writeFileSync(temporary, JSON.stringify(message));
    fs.renameSync(temporary, final);
    this.ring(`${name}\n`);
  }

  /**
   * Reads and removes the envelope a doorbell named. Throws on a name that is not an envelope
   * of the other side (a doorbell cannot point outside the bridge directory) or on bad JSON.
   */
  take(name: string): unknown {
    const match = ENVELOPE_NAME.exec(name);
    if (!match || match[1] === this.side) throw new Error(`The bridge received a doorbell for '${name}', which is not an envelope of the other side.`);
    const file = path.join(this.dir, name);
    const text = fs.readFileSync(file, "utf8");
    // Synchronously: on a memory-backed directory an unlink costs microseconds, while an
    // asynchronous one would wake the thread pool and the event loop again (measured slower).
    fs.unlinkSync(file);
    return JSON.parse(text) as unknown;
  }
}

/** Splits doorbell bytes into complete lines (envelope names), keeping a partial tail. */
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
