/**
 * The host's launchers (util-linux `unshare`, `mount`, `setpriv`, `prlimit`; coreutils
 * `mkdir`): where they are, and whether `setpriv` does what both kinds of isolation start their
 * children under. One place for both probes (`./process-isolation.ts` for sandbox processes,
 * `./shell-isolation.ts` for shell commands).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** Searched after the host's `PATH`: where distributions install util-linux and coreutils. */
export const SYSTEM_DIRS: readonly string[] = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** How long one probe launch may take before it counts as failed. */
export const PROBE_TIMEOUT_MS = 15_000;

/**
 * The absolute path of the executable `name`: `name` itself (resolved) when it has a slash,
 * else the first executable regular file of that name in `firstDirs`, the absolute folders of
 * the host's `PATH`, then {@link SYSTEM_DIRS}. `undefined` when there is none. Never throws.
 */
export function findExecutable(name: string, firstDirs: readonly string[] = []): string | undefined {
  if (name.includes("/")) return isExecutable(path.resolve(name)) ? path.resolve(name) : undefined;
  const fromPath = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  for (const dir of [...firstDirs, ...fromPath, ...SYSTEM_DIRS]) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether `setpriv --pdeathsig KILL -- /bin/sh -c true` exits 0 within {@link PROBE_TIMEOUT_MS}:
 * `--pdeathsig` came with util-linux 2.33, and busybox's `setpriv` has no such option. A
 * `setpriv` that fails it is left out of every launch (children then die with the host only
 * through `unshare --kill-child`), rather than making every launch fail with its usage message
 * (helper-65's review of 5 December, A4). Never rejects.
 */
export function setprivWorks(setpriv: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(setpriv, ["--pdeathsig", "KILL", "--", "/bin/sh", "-c", "true"], { timeout: PROBE_TIMEOUT_MS, killSignal: "SIGKILL", env: {} }, (error) => resolve(!error));
  });
}

/** Added to what the probe cache remembers when `setpriv` was found but failed {@link setprivWorks}. */
const SETPRIV_REFUSED = "; setpriv without --pdeathsig";

/**
 * What a probe remembers of a success (`./probe-cache.ts`): `value`, marked when the `setpriv`
 * found was left out of the launch. Read back by {@link rememberedSetpriv}; one format for both
 * probes.
 */
export function withSetprivNote(value: string, setprivLeftOut: boolean): string {
  return setprivLeftOut ? `${value}${SETPRIV_REFUSED}` : value;
}

/**
 * A remembered value split back into the probe's own value and whether `setpriv` was left out
 * ({@link withSetprivNote}); `undefined` stays `undefined` (nothing remembered).
 */
export function rememberedSetpriv(remembered: string | undefined): { readonly value: string; readonly setprivLeftOut: boolean } | undefined {
  if (remembered === undefined) return undefined;
  const setprivLeftOut = remembered.endsWith(SETPRIV_REFUSED);
  return { value: setprivLeftOut ? remembered.slice(0, -SETPRIV_REFUSED.length) : remembered, setprivLeftOut };
}

