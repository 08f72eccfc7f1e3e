/**
 * A file of a plugin as the static analysis reads it (through the compiler host, editor
 * buffers included).
 */
import type { Locatable } from "./located-tree.js";

/** The text of a file as read through the host, with its line map built on first use. */
export interface TextFile extends Locatable {
  readonly path: string;
  readonly version: string;
  /** The text exactly as read (a byte order mark, if any, included). */
  readonly text: string;
}
