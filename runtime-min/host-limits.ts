/**
 * Host policy limits of every call (issue 12 items 2–3; docs/host-policy.md): a default
 * operation deadline, the sandbox's memory, the size of a result and of an event, and the
 * network policy of sandboxed tools. Like the execution mode, these are host policy: only
 * `RuntimeOptions` (and the CLI flags or project config that feed it) set them, never agent
 * files.
 */
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { runtimeError } from "./errors.js";
import { NETWORK_POLICIES, type NetworkPolicy } from "./sandbox/process-isolation.js";

/** The resolved limits a runtime enforces. */
export interface HostLimits {
  /** Operation deadline of a call that sets none itself, in ms. */
  readonly deadlineMs: number;
  /** V8 heap limit of each sandbox process, in MiB. */
  readonly memoryMb: number;
  /** Largest tool result (JSON text, UTF-8 bytes) a call may return. */
  readonly maxResultBytes: number;
  /** Largest event (`ctx.emit` data as JSON, UTF-8 bytes) a tool may record. */
  readonly maxEventBytes: number;
  /**
   * Most bytes of JSON one run may store through its tools' `ctx.step` and `ctx.emit` (step keys,
   * values and metadata, and every event of the run): past it a step or event is refused to the
   * tool (helper-89's review of 6 December, finding 7: `state.db` grew 336 MB in one call).
   */
  readonly maxRunStateBytes: number;
  /** Network of sandboxed tools. */
  readonly network: NetworkPolicy;
}

/** Defaults: what a user would expect from a tool call on a workstation or CI runner. */
export const DEFAULT_HOST_LIMITS: HostLimits = Object.freeze({
  deadlineMs: 300_000,
  memoryMb: 1024,
  maxResultBytes: 8 * 1024 * 1024,
  maxEventBytes: 256 * 1024,
  maxRunStateBytes: 256 * 1024 * 1024,
  network: "host",
});

/**
 * What a sandbox process may hold besides its JavaScript heap, in MiB, on top of a second
 * `memoryMb`: Node's own start (about 48 MiB of data), thread stacks, compiled code, and the
 * tool's `Buffer`s and `ArrayBuffer`s, which V8's heap limit does not count.
 */
export const MEMORY_HEADROOM_MB = 256;

/**
 * The data size (`RLIMIT_DATA`, in MiB) of a sandbox process whose heap limit is `memoryMb`:
 * twice the heap plus {@link MEMORY_HEADROOM_MB}. A process that fills its heap to the limit
 * holds about 1.2 × `memoryMb` + 75 MiB of data (measured 4 December at 16 to 2048 MiB: the
 * young generation, pages being swept, code), so with twice the heap the heap limit is met
 * first (V8's clean out-of-memory stop); at `memoryMb` + 256 MiB it was not from 512 MiB up
 * (the process died by SIGSEGV instead). This backstop bounds what the heap does not count, so
 * a tool's process cannot hold more than this (issue 12 item 3; docs/host-policy.md).
 */
export function processDataLimitMb(memoryMb: number): number {
  return 2 * memoryMb + MEMORY_HEADROOM_MB;
}

/** Largest deadline a timer can wait for (2^31 - 1 ms, about 24.8 days). */
export const MAX_DEADLINE_MS = 2_147_483_647;

/** The limit options of `RuntimeOptions` (same names as the project config's `host` keys). */
export interface HostLimitOptions {
  readonly deadlineMs?: number;
  readonly memoryMb?: number;
  readonly maxResultBytes?: number;
  readonly maxEventBytes?: number;
  readonly maxRunStateBytes?: number;
  readonly network?: NetworkPolicy;
}

/**
 * Each numeric limit's range: smallest, largest, and how a refusal (AL8062) words it. The
 * project configuration's schema (`schemas/assembly-line.config.schema.json`, `host`) states the
 * same minimums and maximums, so that a compile or the editor reports a value the runtime would
 * refuse; `test/runtime/host-limits-schema.test.ts` keeps the two equal.
 */
export const HOST_LIMIT_RANGES: { readonly [K in Exclude<keyof HostLimits, "network">]: readonly [number, number, string] } = {
  deadlineMs: [1, MAX_DEADLINE_MS, "a whole number of milliseconds from 1 to 2147483647"],
  memoryMb: [16, 1_048_576, "a whole number of MiB from 16 to 1048576"],
  maxResultBytes: [1, 2 ** 30, "a whole number of bytes from 1 to 1073741824 (1 GiB)"],
  maxEventBytes: [1, 2 ** 30, "a whole number of bytes from 1 to 1073741824 (1 GiB)"],
  maxRunStateBytes: [1, 2 ** 40, "a whole number of bytes from 1 to 1099511627776 (1 TiB)"],
};

/**
 * The limits of `options` with defaults filled in. Throws `RuntimeError` AL8062 naming the
 * first option that is not a whole number in its range (or a network policy other than
 * `"host"`/`"none"`).
 */
export function resolveHostLimits(options: HostLimitOptions): HostLimits {
  const limits: { -readonly [K in keyof HostLimits]: HostLimits[K] } = { ...DEFAULT_HOST_LIMITS };
  for (const name of Object.keys(HOST_LIMIT_RANGES) as (keyof typeof HOST_LIMIT_RANGES)[]) {
    const value = options[name];
    if (value === undefined) continue;
    const [min, max, expected] = HOST_LIMIT_RANGES[name];
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw runtimeError(Diagnostics.HostLimitInvalid, "", [name, JSON.stringify(value) ?? String(value), `it must be ${expected}`]);
    }
    limits[name] = value;
  }
  if (options.network !== undefined) {
    if (!NETWORK_POLICIES.includes(options.network)) {
      throw runtimeError(Diagnostics.HostLimitInvalid, "", ["network", JSON.stringify(options.network) ?? String(options.network), `it must be one of: ${NETWORK_POLICIES.join(", ")}`]);
    }
    limits.network = options.network;
  }
  return limits;
}
