/**
 * Keeps the descriptors the host process inherited from its own parent out of every process
 * that runs a tool's code: sandbox processes (`./sandbox-spawn.ts`) and shell commands
 * (`../execution/workspace.ts`). Seed "Execution Model": the sandbox "does not receive host
 * secrets".
 *
 * Node opens everything close-on-exec, so the only descriptors a child inherits without being
 * given them are those the host's own parent left open without the flag: a `flock 200>lockfile`
 * wrapper, a supervisor's or CI runner's pipes, sockets passed by socket activation, files of
 * an embedding server. libuv's `spawn` does not close them, and the permission model checks
 * paths, not descriptors: through them a tool read a host-only 0600 file and wrote outside its
 * workspace, from Node (`fs.writeSync(100, …)`) and from a shell (`/proc/self/fd/100`, which
 * reopens the file on its original, read-write mount; helper-89's review, finding 3).
 *
 * The spawn covers each such descriptor: its `stdio` array names, at that descriptor's number,
 * a read-only `/dev/null` this process holds, which libuv `dup2`s there in the child before
 * the `exec`. The child and everything it starts find an empty, read-only `/dev/null` at that
 * number; descriptors with close-on-exec (the host's own) stay `"ignore"` and close at the
 * `exec` as before. Which descriptors lack the flag is read from `/proc/self/fdinfo` (Linux):
 * the listing at every spawn, each descriptor's flags once while it stays open; where it cannot be read (not Linux, no `/proc`) nothing is covered, which
 * docs/host-policy.md says.
 */
import * as fs from "node:fs";

/** One entry of a `spawn`'s `stdio` array as this module makes them. */
export type StdioEntry = "pipe" | "ignore" | number;

/** `O_CLOEXEC` in the octal `flags:` of `/proc/<pid>/fdinfo/<fd>` (Linux's generic value). */
const O_CLOEXEC = 0o2000000;
const FDINFO = "/proc/self/fdinfo";

/** This process's read-only `/dev/null` (opened close-on-exec, as Node opens every file), once. */
let devNull: number | undefined;

/**
 * `stdio` (what the child gets at 0, 1, 2…), extended so that every descriptor of this process
 * at a higher number that lacks close-on-exec becomes a read-only `/dev/null` in the child
 * (the module comment). Returns `stdio` itself when there is none, or when they cannot be
 * listed. Never throws.
 */
export function coverInheritedDescriptors(stdio: readonly StdioEntry[]): readonly StdioEntry[] {
  const inherited = inheritedDescriptors(stdio.length);
  if (inherited.length === 0) return stdio;
  try {
    devNull ??= fs.openSync("/dev/null", "r");
  } catch {
    return stdio;
  }
  const covered: StdioEntry[] = [...stdio];
  for (const fd of inherited) {
    while (covered.length < fd) covered.push("ignore");
    covered[fd] = devNull;
  }
  return covered;
}

/**
 * What {@link inheritedDescriptors} found of each descriptor number it saw open last time: true
 * for one without close-on-exec. A number still open at the next listing is the same descriptor
 * unless it was closed and opened again in between, and Node opens nothing without the flag,
 * so its `fdinfo` is not read again (about 50 µs a file on a loaded machine: a spawn read ~20).
 */
const known = new Map<number, boolean>();

/**
 * The numbers (ascending, each at least `from`) of this process's descriptors without
 * close-on-exec, read from `/proc/self/fdinfo` (each number's flags once while it stays open);
 * `[]` where that cannot be read. Never throws.
 */
export function inheritedDescriptors(from: number): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(FDINFO);
  } catch {
    return [];
  }
  const open = new Set<number>();
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd)) continue;
    open.add(fd);
    if (fd < from || fd === devNull) continue;
    let inherited = known.get(fd);
    if (inherited === undefined) {
      inherited = lacksCloseOnExec(name);
      if (inherited === undefined) continue;
      known.set(fd, inherited);
    }
    if (inherited) found.push(fd);
  }
  for (const fd of known.keys()) if (!open.has(fd)) known.delete(fd);
  return found.sort((a, b) => a - b);
}

/** Whether descriptor `name` lacks close-on-exec; `undefined` when it closed meanwhile (the listing's own, for one). */
function lacksCloseOnExec(name: string): boolean | undefined {
  let info: string;
  try {
    info = fs.readFileSync(`${FDINFO}/${name}`, "latin1");
  } catch {
    return undefined;
  }
  const flags = /^flags:\s*([0-7]+)/m.exec(info);
  return flags ? (parseInt(flags[1] as string, 8) & O_CLOEXEC) === 0 : undefined;
}
