/**
 * Quoting for the command lines we print (fix commands in hints, the package manager's command
 * in `add`, `approve` commands after an approval gate), so that a user can paste them.
 */

/**
 * Quotes one argument for a POSIX shell, leaving plain words (`[A-Za-z0-9@%+=:,./_-]+`) alone.
 *
 * @example shellQuote("my agent") // "'my agent'"
 */
export function shellQuote(argument: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(argument) ? argument : `'${argument.replace(/'/g, `'\\''`)}'`;
}
