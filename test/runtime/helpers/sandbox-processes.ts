/**
 * Finds sandbox processes from the host's side. A sandboxed tool runs as PID 1 of its own PID
 * namespace (issue 12), so the pid it reports means nothing to the host; tests find the Node
 * child by its working directory (the run's workspace) instead.
 */
import * as fs from "node:fs";

/** Host pids of live (not zombie) Node sandbox children whose working directory is `workspace`. */
export function sandboxPidsIn(workspace: string): number[] {
  const real = fs.realpathSync(workspace);
  return allPids().filter((pid) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/cwd`) === real && fs.readlinkSync(`/proc/${pid}/exe`) === fs.realpathSync(process.execPath) && alive(pid);
    } catch {
      return false;
    }
  });
}

/** Every live descendant of `root` (children, grandchildren, ...), by walking /proc. */
export function descendantsOf(root: number): number[] {
  const parents = new Map<number, number>();
  for (const pid of allPids()) {
    const parent = parentOf(pid);
    if (parent !== undefined) parents.set(pid, parent);
  }
  const found: number[] = [];
  for (const [pid] of parents) {
    for (let up = parents.get(pid); up !== undefined; up = parents.get(up)) {
      if (up === root) {
        found.push(pid);
        break;
      }
    }
  }
  return found.filter(alive);
}

/** True while `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Polls `check` every 20 ms until it returns a value other than `undefined` (at most `timeoutMs`). */
export async function pollFor<T>(check: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("pollFor: timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function allPids(): number[] {
  return fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}
