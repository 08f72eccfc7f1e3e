/**
 * Host side of one sandbox child process: spawns it with an allowlisted environment and the
 * permission model, sends call envelopes over the bridge (`./bridge.ts`), answers the child's
 * `ctx` requests, and fails in-flight calls when the process dies (seed "Execution Model";
 * issue 4 item 4).
 */
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import type { Socket } from "node:net";
import { removeBridgeFolder } from "./bridge-root.js";
import { childMessageProblem } from "./child-message-check.js";
import { EnvelopeBridge, FrameReader, INLINE_FRAME_MAX_BYTES, socketSender, type Frame } from "./bridge.js";
import type { CallOutcome } from "./execute-definition.js";
import type { Json } from "./json-copy.js";
import { processDataLimitMb } from "../host-limits.js";
import { outOfMemory, resultTooLarge, withDataLimitHint } from "./limit-messages.js";
import { exchangesFileContents, MAX_CALL_SETUPS, type CallRequest, type CallSetup, type ChildMessage, type ContextOperation } from "./protocol.js";
import { descriptorOf, spawnSandboxProcess, type SandboxSpawnOptions, type SpawnedSandbox } from "./sandbox-spawn.js";

/** Answers the `ctx` operations of one call (emit, steps, sandbox file/shell work). */
export type ContextHandler = (operation: ContextOperation) => Promise<Json | undefined>;

/** Thrown into in-flight calls when the child process exits or cannot start. */
export class SandboxExitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
  ) {
    super(message);
    this.name = "SandboxExitError";
  }
}

/** How to start a worker: how its process is launched (`./sandbox-spawn.ts`), and how long it may take. */
export interface WorkerOptions extends SandboxSpawnOptions {
  /** How long to wait for the child's `ready` message, in milliseconds. */
  readonly startTimeoutMs: number;
  /**
   * A process started before the runtime opened (`../execution/early-start.ts`): the worker
   * uses it instead of spawning when it was launched with options equal to these, and ends it
   * otherwise.
   */
  readonly early?: EarlySandboxProcess;
}

/**
 * Whether process `pid` still runs, also when its exit has not reached the host's event loop
 * yet: on Linux, a process that ended and is not reaped is a zombie (state `Z` in
 * `/proc/<pid>/stat`); elsewhere, whether it can still be signalled.
 */
function stillRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "<pid> (<comm>) <state> ...": the name may hold spaces and parentheses; the state follows the last ")".
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && fs.existsSync("/proc/self/stat")) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** A sandbox process started ahead of its worker, which a worker may adopt. */
export interface EarlySandboxProcess {
  /**
   * The process when it was launched with options equal to `options` and is still running,
   * else `undefined` (and it is ended): asked once, by the worker about to spawn.
   */
  adopt(options: SandboxSpawnOptions): SpawnedSandbox | undefined;
}

/**
 * Headroom of one child → host envelope over `maxResultBytes` (the envelope's own fields): a
 * result envelope beyond it is refused, and any envelope beyond the bridge cap (see
 * {@link MAX_CONTEXT_ENVELOPE_BYTES}) is never read and ends the child.
 */
const ENVELOPE_OVERHEAD_BYTES = 64 * 1024;

/** Largest `ctx` message (file contents through `ctx.getSandbox()`) unless `maxResultBytes` is larger. */
const MAX_CONTEXT_ENVELOPE_BYTES = 64 * 1024 * 1024;

interface InFlight {
  readonly handler: ContextHandler;
  resolve(outcome: CallOutcome): void;
  reject(error: Error): void;
}

const OUTPUT_TAIL_BYTES = 4096;
/** What util-linux `unshare` prints when its child was killed by SIGKILL (see `onExit`). */
const UNSHARE_SIGKILL_NOTE = /(?:^|\n)unshare: sigprocmask unblock failed: Invalid argument$/;

/** Default of {@link frameStallMs}. */
const DEFAULT_FRAME_STALL_MS = 5000;
/** How long a frame the child began may stay incomplete before the child is stopped. */
let frameStallMs = DEFAULT_FRAME_STALL_MS;

/**
 * Sets how long a sandbox child may leave a frame incomplete before it is stopped for breaking
 * the bridge protocol (default 5000 ms; `undefined` restores it). For tests of hostile children.
 */
export function setFrameStallMs(ms: number | undefined): void {
  frameStallMs = ms ?? DEFAULT_FRAME_STALL_MS;
}

/** The fields of `request` that the child keeps per tool ({@link CallSetup}). */
function setupOf(request: Omit<CallRequest, "kind" | "id">): CallSetup {
  return {
    runId: request.runId,
    toolName: request.toolName,
    bundlePath: request.bundlePath,
    bundleIdentity: request.bundleIdentity,
    ...(request.factory === undefined ? {} : { factory: request.factory }),
    factoryConfig: request.factoryConfig,
    ctxConfig: request.ctxConfig,
    workspace: request.workspace,
  };
}

/**
 * True when `request` has the setup `sent`: the same strings, and the very same config objects
 * (the runtime keeps one per tool; a config that is not the same object is sent again, so a
 * changed config always reaches the child).
 */
function sameSetup(sent: CallSetup, request: Omit<CallRequest, "kind" | "id">): boolean {
  return (
    sent.toolName === request.toolName &&
    sent.factoryConfig === request.factoryConfig &&
    sent.ctxConfig === request.ctxConfig &&
    sent.runId === request.runId &&
    sent.bundlePath === request.bundlePath &&
    sent.bundleIdentity === request.bundleIdentity &&
    sent.factory === request.factory &&
    sent.workspace === request.workspace
  );
}

/**
 * How long an idle sandbox process runs before it is paused (`SandboxWorker.pause`): code a tool
 * leaves behind runs at most this long after its call; calls closer together than this send no
 * signal (helper-89's review, finding 5; issue 14 item 2).
 */
export const PAUSE_AFTER_IDLE_MS = 100;

/** One warm sandbox child. Create with {@link SandboxWorker.start}. */
export class SandboxWorker {
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 0;
  private exited: SandboxExitError | undefined;
  private stderrTail = "";
  /** Why the host killed the child for breaking the bridge protocol, if it did. */
  private protocolError: string | undefined;
  /** Why the host killed the child for exceeding a host limit, if it did. */
  private limitError: string | undefined;
  private readonly exitWaiters: (() => void)[] = [];
  /** Armed while the child has sent part of a frame (see {@link watchStall}). */
  private stallTimer: NodeJS.Timeout | undefined;
  /** Whether the child's handles keep the host's event loop alive ({@link setActive}); unset until first set. */
  private active: boolean | undefined;
  /** Set while the child's process group is stopped ({@link pause}). */
  private paused = false;
  /**
   * The pause timer ({@link pause}): armed when the child goes idle and no timer is pending, and
   * left armed while calls come and go; it re-arms itself for whatever is left of the idle delay.
   */
  private pauseTimer: NodeJS.Timeout | undefined;
  /** When the child last went idle (`performance.now()`), for {@link pause}. */
  private idleSince = 0;
  /** The call setups the child holds, oldest first (see `MAX_CALL_SETUPS` in `./protocol.ts`). */
  private readonly setups: { readonly id: number; readonly fields: CallSetup }[] = [];
  private nextSetupId = 0;

  private constructor(
    private readonly child: ChildProcess,
    private readonly doorbell: Socket,
    private readonly bridge: EnvelopeBridge,
    readonly bridgeDir: string,
    private readonly options: WorkerOptions,
  ) {}

  /**
   * Spawns a child (or adopts `options.early`'s process, when it was launched the same way) and
   * resolves once it reported ready; rejects with {@link SandboxExitError}.
   */
  static async start(options: WorkerOptions): Promise<SandboxWorker> {
    const adopted = options.early?.adopt(options);
    if (adopted !== undefined) {
      const worker = SandboxWorker.over(adopted, options);
      try {
        await worker.waitReady(options.startTimeoutMs);
      } catch (error) {
        // An early process that exited before it was ready (killed from outside while the host
        // was too busy to see it go: `adopt` could not tell) never ran the tool: a fresh process
        // is spawned, as without the early start (review of 5 December, F3). A timeout is not retried.
        if (error !== worker.exited) throw error;
        return SandboxWorker.spawnReady(options);
      }
      // Its "ready" waited in the pipe, so a process killed after sending it, while the host's
      // loop was busy, reads as ready now and would fail the call it is handed although the tool
      // never ran: one that is gone already is replaced the same way (review of 5 December, N3).
      if (!stillRunning(adopted.child.pid)) {
        worker.kill();
        return SandboxWorker.spawnReady(options);
      }
      worker.setActive(false);
      return worker;
    }
    return SandboxWorker.spawnReady(options);
  }

  /** Spawns a child and resolves once it reported ready. */
  private static async spawnReady(options: WorkerOptions): Promise<SandboxWorker> {
    const worker = SandboxWorker.over(spawnSandboxProcess(options), options);
    await worker.waitReady(options.startTimeoutMs);
    worker.setActive(false);
    return worker;
  }

  /** The worker of a spawned (or adopted) process, listening from now on. */
  private static over({ child, bridgeDir }: SpawnedSandbox, options: WorkerOptions): SandboxWorker {
    const doorbell = child.stdio[3] as Socket;
    // Written straight to the doorbell's descriptor while its stream holds nothing (see `socketSender`).
    const bridge = new EnvelopeBridge(bridgeDir, "h", socketSender(doorbell, descriptorOf(doorbell)), { inlineMaxBytes: INLINE_FRAME_MAX_BYTES });
    return new SandboxWorker(child, doorbell, bridge, bridgeDir, options);
  }

  /** The child's process id (for audits and tests). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True until the child exits. */
  get alive(): boolean {
    return this.exited === undefined;
  }

  /** Number of calls currently running in this worker. */
  get busy(): number {
    return this.inFlight.size;
  }

  /**
   * Runs one call in the child. Resolves with the child's outcome; rejects with
   * {@link SandboxExitError} when the child dies first, or with the error of a failed publish.
   */
  call(request: Omit<CallRequest, "kind" | "id">, handler: ContextHandler): Promise<CallOutcome> {
    if (this.exited) return Promise.reject(this.exited);
    this.nextId += 1;
    const id = this.nextId;
    return new Promise<CallOutcome>((resolve, reject) => {
      this.inFlight.set(id, { handler, resolve, reject });
      this.setActive(true);
      try {
        const known = this.setups.find((setup) => sameSetup(setup.fields, request));
        if (known) {
          this.bridge.publish({ kind: "call", id, setup: known.id, toolCallId: request.toolCallId, input: request.input, approval: request.approval });
        } else {
          const setup = { id: ++this.nextSetupId, fields: setupOf(request) };
          this.bridge.publish({ kind: "call", id, setup: setup.id, setupFields: setup.fields, toolCallId: request.toolCallId, input: request.input, approval: request.approval });
          // Remembered once sent; the child drops the oldest in the same order.
          this.setups.push(setup);
          if (this.setups.length > MAX_CALL_SETUPS) this.setups.shift();
        }
      } catch (error) {
        this.settle(id);
        reject(error as Error);
      }
    });
  }

  /** Kills the child at once (cancellation, deadline); in-flight calls reject. */
  kill(): void {
    if (!this.alive) return;
    // The whole process group (the launcher and the Node child it forked; see `./process-isolation.ts`).
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // Already gone, or no group of its own; the direct kill below still applies.
    }
    this.child.kill("SIGKILL");
  }

  /**
   * Ends the child and resolves once its exit is seen. An idle child is killed at once: it has
   * no call to finish, and closing the doorbell would end it almost the same way (the child
   * calls `process.exit` as soon as it sees the close; only a tool's own synchronous `exit`
   * handlers would still run), only later — about 5 ms of every one-shot `call` (issue 14
   * item 3). A child with calls in flight is asked to leave by closing the doorbell, so those
   * calls fail as they always did; it is killed if it has not exited after `graceMs`.
   */
  async close(graceMs = 1000): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    // Held until the exit is seen: a child that does not leave on its own (stopped, say) is
    // killed after the grace period, and its exit must still reach this loop.
    this.child.ref();
    if (this.inFlight.size === 0) this.kill();
    else this.doorbell.end();
    const timer = setTimeout(() => this.kill(), graceMs);
    await exited;
    clearTimeout(timer);
  }

  private waitReady(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new SandboxExitError(`The sandbox process did not start within ${timeoutMs} ms.`, null, null));
        this.kill();
      }, timeoutMs);
      const reader = new FrameReader(INLINE_FRAME_MAX_BYTES);
      let ready = false;
      this.child.stdout?.on("data", () => undefined);
      this.child.stderr?.setEncoding("utf8");
      this.child.stderr?.on("data", (chunk: string) => {
        this.stderrTail = (this.stderrTail + chunk).slice(-OUTPUT_TAIL_BYTES);
      });
      this.doorbell.on("data", (chunk: Buffer) => {
        // A child stopped for breaking the protocol or a limit is not heard any further: a
        // result it sent after the offending bytes must not complete the call.
        if (this.protocolError !== undefined || this.limitError !== undefined) return;
        let frames: Frame[];
        try {
          frames = reader.push(chunk);
        } catch (error) {
          // Garbage, an endless header or an oversized inline frame: never buffered further.
          this.breakProtocol(error);
          return;
        }
        for (const frame of frames) {
          const announced = frame.bytes;
          const cap = Math.max(this.options.maxResultBytes, MAX_CONTEXT_ENVELOPE_BYTES) + ENVELOPE_OVERHEAD_BYTES;
          if (announced > cap) {
            // Never read: the cap protects the host's memory and state.db from the child.
            this.limitError ??= `The sandbox process sent a ${announced}-byte message, over the host's limit of ${cap} bytes per bridge message (the larger of maxResultBytes and 64 MiB), and was stopped; no result was recorded. Return less, or raise maxResultBytes with --max-result-bytes N (or host.maxResultBytes).`;
            this.kill();
            return;
          }
          let message: ChildMessage;
          try {
            message = (frame.kind === "inline" ? JSON.parse(frame.text) : this.bridge.take(frame.line)) as ChildMessage;
            if (message === null || typeof message !== "object") throw new Error(`The bridge received ${JSON.stringify(message)}, which is not a message object.`);
            // Tool code can write its own frames: a message no well-behaved child sends is refused (`./child-message-check.ts`).
            const problem = childMessageProblem(message as unknown as { readonly [key: string]: unknown });
            if (problem !== undefined) throw new Error(problem);
          } catch (error) {
            // A child that breaks the protocol is not trusted further: it is killed, and its
            // in-flight calls fail with the reason.
            this.breakProtocol(error);
            return;
          }
          if (message.kind === "result" && announced > this.options.maxResultBytes + ENVELOPE_OVERHEAD_BYTES) {
            // The child's own check was bypassed: refuse the result here, unrecorded.
            this.settle(message.id)?.resolve({ ok: false, failureKind: "execution_error", error: resultTooLarge(announced, this.options.maxResultBytes), resultBytes: announced });
          } else if (message.kind === "ready" && !ready) {
            ready = true;
            clearTimeout(timer);
            resolve();
          } else this.receive(message);
        }
        this.watchStall(reader);
      });
      this.doorbell.on("error", () => undefined);
      this.child.on("exit", (code, signal) => {
        clearTimeout(timer);
        this.onExit(code, signal);
        if (!ready) reject(this.exited!);
      });
    });
  }

  /** Kills a child that broke the bridge protocol; its in-flight calls fail with the reason. */
  private breakProtocol(error: unknown): void {
    this.protocolError ??= error instanceof Error ? error.message : String(error);
    this.kill();
  }

  /**
   * A frame is written whole in one `write` while the socket has room, and its rest follows as
   * soon as the host reads (`socketSender`), so a frame that stays incomplete means the child
   * stopped mid-frame (hostile or broken): after {@link frameStallMs} without completing it,
   * the child is killed for breaking the protocol, and the call fails (the run continues).
   * Costs nothing while frames arrive whole (the timer is armed only for a partial frame).
   */
  private watchStall(reader: FrameReader): void {
    const partial = reader.partial;
    if (!partial) {
      if (this.stallTimer) clearTimeout(this.stallTimer);
      this.stallTimer = undefined;
      return;
    }
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => {
      const of = partial.announced === undefined ? "of a frame header" : `of the ${partial.announced}-byte frame it announced`;
      this.breakProtocol(new Error(`it sent ${partial.received} bytes ${of} and nothing more for ${frameStallMs} ms`));
    }, frameStallMs);
    this.stallTimer.unref();
  }

  private receive(message: ChildMessage): void {
    if (message.kind === "result") {
      const waiter = this.settle(message.id);
      if (!waiter) return;
      if (message.ok) waiter.resolve({ ok: true, output: message.output, modelOutput: message.modelOutput === undefined ? message.output : message.modelOutput });
      else {
        waiter.resolve({
          ok: false,
          failureKind: message.failureKind,
          error: message.failureKind === "execution_error" ? withDataLimitHint(message.error, this.options.memoryMb, processDataLimitMb(this.options.memoryMb)) : message.error,
          ...(message.stack ? { stack: message.stack } : {}),
          ...(message.output !== undefined ? { output: message.output } : {}),
          // The child is not trusted: a size that is no count of bytes is dropped (then its words stand).
          ...(Number.isSafeInteger(message.resultBytes) && message.resultBytes! > 0 ? { resultBytes: message.resultBytes! } : {}),
          ...(message.copyChanged === true ? { copyChanged: true } : {}),
        });
      }
    } else if (message.kind === "ctx") {
      void this.answer(message.id, message.callId, message.operation);
    }
  }

  private async answer(requestId: number, callId: number, operation: ContextOperation): Promise<void> {
    const waiter = this.inFlight.get(callId);
    let reply: unknown;
    try {
      if (!waiter) throw new Error("The call this ctx request belongs to has already finished.");
      reply = { kind: "ctx_result", id: requestId, ok: true, value: await waiter.handler(operation) };
    } catch (error) {
      const code = errorCodeOf(error);
      reply = { kind: "ctx_result", id: requestId, ok: false, error: error instanceof Error ? error.message : String(error), ...(code === undefined ? {} : { code }) };
    }
    if (this.alive) {
      try {
        this.bridge.publish(reply, { viaFile: exchangesFileContents(operation) });
      } catch {
        // The child is going away; its exit handler fails the call.
      }
    }
  }

  private settle(id: number): InFlight | undefined {
    const waiter = this.inFlight.get(id);
    this.inFlight.delete(id);
    if (this.inFlight.size === 0) this.setActive(false);
    return waiter;
  }

  private onExit(exitCode: number | null, exitSignal: NodeJS.Signals | null): void {
    let stderr = this.stderrTail.trim();
    let code = exitCode;
    let signal = exitSignal;
    // `unshare --fork` re-raises its child's fatal signal on itself, which fails for SIGKILL (it
    // cannot be unblocked): it then says so and exits 1. That is the Node child killed by SIGKILL.
    if (code === 1 && UNSHARE_SIGKILL_NOTE.test(stderr)) {
      stderr = stderr.replace(UNSHARE_SIGKILL_NOTE, "").trim();
      code = null;
      signal = "SIGKILL";
    }
    // V8's stop at the heap limit, or an allocation refused at the data size (`processDataLimitMb`).
    if (this.limitError === undefined && /heap out of memory|Reached heap limit|process out of memory|std::bad_alloc/i.test(stderr)) {
      this.limitError = outOfMemory(this.options.memoryMb, processDataLimitMb(this.options.memoryMb));
    }
    const how = this.protocolError
      ? `broke the bridge protocol (${this.protocolError}) and was stopped`
      : signal
        ? `was killed by ${signal}`
        : `exited with code ${code}`;
    this.exited = new SandboxExitError(
      this.limitError ?? `The sandbox process ${how} before the call finished; no result was recorded.${stderr ? ` Its last output: ${stderr}` : ""}`,
      code,
      signal,
    );
    for (const [id, waiter] of [...this.inFlight]) {
      this.inFlight.delete(id);
      waiter.reject(this.exited);
    }
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    // Nothing here may throw: this runs in the child's "exit" event, and what the tool left in
    // its bridge folder must not end the host (host-file review of 5 December, H7).
    try {
      this.bridge.close();
    } catch {
      // The folder goes below, whatever is in it.
    }
    removeBridgeFolder(this.bridgeDir);
    for (const resolve of this.exitWaiters.splice(0)) resolve();
  }

  /**
   * Keeps the host's event loop alive only while calls are in flight (an idle pool never blocks
   * exit). Changes the handles only when the state changes (not once per call), and skips
   * streams already closed: `Socket.ref`/`unref` on a socket without a handle (the child's stdin,
   * ended once the entry script was sent) waits for a `connect` that never comes, adding a
   * listener per call that is never removed.
   */
  private setActive(active: boolean): void {
    if (this.active === active) return;
    this.active = active;
    const handles = [this.child, this.doorbell, this.child.stdout, this.child.stderr, this.child.stdin] as ({ ref(): void; unref(): void; destroyed?: boolean } | null)[];
    for (const handle of handles) {
      if (!handle || handle.destroyed === true) continue;
      if (active) handle.ref();
      else handle.unref();
    }
    this.pause(!active);
  }

  /**
   * Pauses the child's process group (`SIGSTOP`) once it has had no call in flight for
   * {@link PAUSE_AFTER_IDLE_MS}, and lets it go on (`SIGCONT`) before the next call is sent when
   * it was paused: a tool's code that outlives its call — a `setInterval`, a pending promise
   * chain — no longer burns CPU or writes the workspace between calls for as long as the warm
   * process lives (helper-89's review, finding 5); it runs at most that long after a call, and
   * again only during the run's next call, within that call's deadline. Calls that follow each
   * other closely send no signal at all: two signals and a stopped process woken per call cost
   * the `echo` round trip about 140 µs, more than half of it (issue 14 item 2). A paused process
   * still ends with a `SIGKILL` ({@link kill}, the parent-death signal); the kernel delivers
   * `SIGSTOP` and `SIGCONT` from the host's namespace to the child's PID 1. A group already gone
   * is not an error.
   *
   * One timer serves a stream of calls: going idle only notes the time, and arms the timer when
   * none is pending; a call starting leaves it armed. When it fires, a busy child is left alone
   * (its next idle arms the timer again), and a child idle for less than the delay gets the timer
   * again for the rest of it. A timer set and cleared per call cost a `Timeout`, its async resource
   * and a timer-list insert and removal every call (docs/runtime.md, eighth round).
   */
  private pause(idle: boolean): void {
    if (!idle) {
      if (this.paused) this.signalGroup("SIGCONT");
      this.paused = false;
      return;
    }
    this.idleSince = performance.now();
    if (this.pauseTimer === undefined) this.armPause(PAUSE_AFTER_IDLE_MS);
  }

  /** Arms the pause timer ({@link pause}) to fire in `delayMs`. */
  private armPause(delayMs: number): void {
    this.pauseTimer = setTimeout(() => {
      this.pauseTimer = undefined;
      if (this.active === true || this.paused) return;
      const left = this.idleSince + PAUSE_AFTER_IDLE_MS - performance.now();
      if (left > 0) this.armPause(left);
      else this.paused = this.signalGroup("SIGSTOP");
    }, delayMs);
    this.pauseTimer.unref();
  }

  /** Sends `signal` to the child's process group; false when the child is gone (its exit is reported as usual). */
  private signalGroup(signal: "SIGSTOP" | "SIGCONT"): boolean {
    if (!this.alive || this.child.pid === undefined) return false;
    try {
      process.kill(-this.child.pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** Node's error `code` of a failed ctx operation (`"ENOENT"`, `"ELOOP"`…), when it has one of that form; never throws. */
function errorCodeOf(error: unknown): string | undefined {
  try {
    const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
    return typeof code === "string" && /^E[A-Z0-9]{1,30}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}
