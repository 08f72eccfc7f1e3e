/**
 * When output is coloured, decided once at the process boundary (the CLI entry) and passed
 * down to the formatters as a palette. Formatters never sniff the environment themselves, so
 * the same call gives the same text in a terminal, under CI and inside tests.
 */
import pc from "picocolors";

/** A picocolors palette: every function is the identity when colour is off. */
export type Palette = ReturnType<typeof pc.createColors>;

/** The palette that adds no escape codes (the formatters' default). */
export const plainPalette: Palette = pc.createColors(false);

/**
 * Whether text written to `stream` should be coloured, by the conventions users set:
 * `NO_COLOR` with any non-empty value turns colour off (no-color.org); otherwise `FORCE_COLOR`
 * turns it on unless it is `0` or `false` (force-color.org); otherwise a TTY whose `TERM` is
 * not `dumb` gets colour. A `CI` variable alone does not turn colour on (unlike picocolors'
 * own detection), because CI logs are often read as plain text.
 * @param stream the stream the text goes to (`process.stdout` or `process.stderr`).
 * @param env the environment to read (default `process.env`).
 */
export function colorFor(stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env["NO_COLOR"]) return false;
  const force = env["FORCE_COLOR"];
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  return stream.isTTY === true && env["TERM"] !== "dumb";
}

/** The palette for `enabled`: {@link plainPalette} when off. */
export function paletteFor(enabled: boolean): Palette {
  return enabled ? pc.createColors(true) : plainPalette;
}
