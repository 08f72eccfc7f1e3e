/**
 * Text that came from a plugin or a tool (a description, an error, an event type, a stack line, a
 * schema diff) made safe to print on a terminal. A hostile tool's error or a plugin's
 * description could otherwise carry escape sequences that clear the screen, set the title,
 * write the clipboard (OSC 52) or erase the line `review` printed and show another (helper-89's
 * review, finding 6: "a reviewer sees exactly what the model will be offered", README). One place
 * for the rule: the pretty printers of diagnostics (`diagnostics/format-pretty.ts`), of `call`
 * and `approve`, of `tools` and `search`, and of the contract review use it.
 */

/**
 * The control characters a terminal may act on: C0 other than tab and LF (CR too: it returns to
 * the line's start, so the rest overwrites what was printed), DEL, and C1 (U+0080–U+009F:
 * U+009B is CSI where the terminal reads 8-bit controls).
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** {@link CONTROL} without CR: a code frame keeps a file's line ends as they are. */
const CONTROL_BUT_CR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/**
 * `text` with every control character a terminal acts on replaced by its Unicode control
 * picture (ESC → ␛, CR → ␍, DEL → ␡; a C1 control → U+FFFD), one code unit for one, so columns
 * stay where they were. Tab and LF stay (a stack keeps its lines); `keepCarriageReturn` keeps CR
 * too, for a code frame of a file with CRLF line ends.
 */
export function showControlCharacters(text: string, keepCarriageReturn = false): string {
  return text.replace(keepCarriageReturn ? CONTROL_BUT_CR : CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? "\u2421" : "\uFFFD";
  });
}

/**
 * The first control character of {@link showControlCharacters}'s set in `text` (tab and LF
 * allowed), as `U+001B`, or `undefined` when there is none: what the compile check of
 * model-visible text names (AL4037).
 */
export function firstControlCharacter(text: string): string | undefined {
  const found = text.match(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` : undefined;
}
