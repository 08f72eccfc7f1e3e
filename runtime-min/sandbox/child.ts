/**
 * Entry of a sandbox child process (seed "Execution Model": authored JavaScript runs in a
 * separate process and is never imported into the host). Started by `./sandbox-worker.ts` as
 * `node <permission flags> child.mjs <bridgeDir>` with an allowlisted environment and a
 * doorbell socket on fd 3.
 *
 * The child imports verified bundles, runs calls with `./execute-definition.ts`, and sends
 * every `ctx` operation back to the host over the same bridge (inline frames for small messages,
 * file envelopes for large ones and for every `ctx.getSandbox()` file exchange). It exits when the doorbell
 * closes (the host went away or closed the worker).
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { EnvelopeBridge, EnvelopeTooLargeError, FrameReader, INLINE_FRAME_MAX_BYTES, socketSender } from "./bridge.js";
import { bundleLoadFailure, DefinitionCache, executeDefinition, messageOf, type BundleModule, type CallOutcome } from "./execute-definition.js";
import type { Json } from "./json-copy.js";
import { hasIdentity } from "../artifact/copy-identity.js";
import { useNativeRealpath } from "./native-realpath.js";
import { resultTooLarge } from "./limit-messages.js";
import { clipFailureText, exchangesFileContents, MAX_CALL_SETUPS, type CallMessage, type CallRequest, type CallSetup, type ContextOperation, type HostMessage } from "./protocol.js";
import type { ContextChannel } from "./tool-context.js";

const DOORBELL_FD = 3;
/** The empty module {@link warmModuleLoader} imports (no envelope is named like it: `./bridge.ts`). */
const WARM_MODULE_FILE = "warm.mjs";
/** Size of the buffer the doorbell socket reads into (an inline frame is at most 64 KiB plus its header). */
const READ_BUFFER_BYTES = 64 * 1024;

interface Pending {
  resolve(value: Json | undefined): void;
  reject(error: Error): void;
}

function main(): void {
  // Before any bundle is imported: no existence oracle through the JS realpathSync (`./native-realpath.ts`).
  useNativeRealpath();
  // `node ... - <bridgeDir> <maxResultBytes>`: the script itself arrives on stdin.
  const bridgeDir = process.argv[2];
  const maxResultBytes = Number(process.argv[3]) || Number.MAX_SAFE_INTEGER;
  if (!bridgeDir) {
    process.stderr.write("assembly-line sandbox: missing bridge directory argument\n");
    process.exit(2);
  }
  // Bytes are read into one reused buffer and handed straight to `onBytes`, without the
  // readable stream's queueing and `data` events per read (issue 14 item 2); the socket still
  // ends and closes as a stream does.
  const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const options: net.SocketConstructorOpts & { readonly onread: net.OnReadOpts } = {
    fd: DOORBELL_FD,
    readable: true,
    writable: true,
    onread: {
      buffer: readBuffer,
      callback: (bytes: number, buffer: Uint8Array): boolean => {
        // The reader may keep part of a chunk until its frame completes, so it gets its own copy.
        onBytes(Buffer.from(buffer.subarray(0, bytes)));
        return true;
      },
    },
  };
  const doorbell = new net.Socket(options);
  // Written straight to fd 3 while the stream holds nothing (see `socketSender`).
  const bridge = new EnvelopeBridge(bridgeDir, "c", socketSender(doorbell, DOORBELL_FD), { inlineMaxBytes: INLINE_FRAME_MAX_BYTES });
  const modules = new Map<string, Promise<BundleModule>>();
  const definitions = new DefinitionCache();
  const pending = new Map<number, Pending>();
  /** The call setups the host sent, oldest first (see `MAX_CALL_SETUPS`). */
  const setups = new Map<number, CallSetup>();
  let nextRequestId = 0;
  const reader = new FrameReader(INLINE_FRAME_MAX_BYTES);

  const channelFor = (callId: number): ContextChannel => ({
    request(operation: ContextOperation): Promise<Json | undefined> {
      nextRequestId += 1;
      const id = nextRequestId;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        bridge.publish({ kind: "ctx", id, callId, operation }, { viaFile: exchangesFileContents(operation) });
      });
    },
  });

  const runCall = async (message: CallMessage): Promise<void> => {
    if (message.setupFields) {
      setups.set(message.setup, message.setupFields);
      if (setups.size > MAX_CALL_SETUPS) setups.delete(setups.keys().next().value as number);
    }
    const setup = setups.get(message.setup);
    if (!setup) {
      // Never happens with this host (it names only setups the child holds); said plainly if it does.
      bridge.publish({ kind: "result", id: message.id, ok: false, failureKind: "execution_error", error: `The sandbox bridge named call setup ${message.setup}, which this process does not hold.` });
      return;
    }
    const request: CallRequest = { kind: "call", id: message.id, ...setup, toolCallId: message.toolCallId, input: message.input, approval: message.approval };
    const outcome = await runWithModule(request, modules, definitions, channelFor(request.id));
    try {
      if (outcome.ok && outcome.modelOutput === outcome.output) {
        // No toModelOutput: the model sees the result itself, so it crosses the bridge once.
        bridge.publish({ kind: "result", id: request.id, ok: true, output: outcome.output }, { maxBytes: maxResultBytes });
      } else if (outcome.ok) {
        bridge.publish({ kind: "result", id: request.id, ...outcome }, { maxBytes: maxResultBytes });
      } else {
        // The host refuses a longer error or stack (`clipFailureText`).
        const stack = "stack" in outcome && outcome.stack !== undefined ? { stack: clipFailureText(outcome.stack) } : {};
        bridge.publish({ kind: "result", id: request.id, ...outcome, error: clipFailureText(outcome.error), ...stack }, { maxBytes: maxResultBytes });
      }
    } catch (error) {
      if (!(error instanceof EnvelopeTooLargeError)) throw error;
      // The host would refuse it unread; say why, and keep this warm process.
      bridge.publish({ kind: "result", id: request.id, ok: false, failureKind: "execution_error", error: resultTooLarge(error.bytes, maxResultBytes), resultBytes: error.bytes });
    }
  };

  function onBytes(chunk: Buffer): void {
    // The host is trusted; a framing error here is a bug, and ends this process.
    for (const frame of reader.push(chunk)) {
      const message = (frame.kind === "inline" ? JSON.parse(frame.text) : bridge.take(frame.line)) as HostMessage;
      if (message.kind === "call") {
        void runCall(message);
      } else if (message.kind === "ctx_result") {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (!waiter) continue;
        if (message.ok) waiter.resolve(message.value);
        else waiter.reject(message.code === undefined ? new Error(message.error) : Object.assign(new Error(message.error), { code: message.code }));
      }
    }
  }
  doorbell.on("close", () => process.exit(0));
  doorbell.on("error", () => process.exit(0));
  bridge.publish({ kind: "ready", pid: process.pid });
  warmModuleLoader(bridgeDir);
}

/**
 * Imports an empty ES module, which the child writes into its own bridge folder, right after it
 * said `ready`: the first import of a file costs the module loader about a millisecond more than
 * later ones (its file resolution and reading, the permission checks on that path), and without
 * this the bundle's import, when the call arrives, would pay it (issue 14 item 3, a whole
 * `call`). The module holds nothing and runs nothing; nothing else reads it, and the bridge
 * folder is removed with the process. A failure is ignored: the bundle's import then pays the
 * cost, as before.
 */
function warmModuleLoader(bridgeDir: string): void {
  try {
    const file = path.join(bridgeDir, WARM_MODULE_FILE);
    fs.writeFileSync(file, "export {};\n");
    import(pathToFileURL(file).href).catch(() => undefined);
  } catch {
    // Not written: nothing warmed.
  }
}

async function runWithModule(
  request: CallRequest,
  modules: Map<string, Promise<BundleModule>>,
  definitions: DefinitionCache,
  channel: ContextChannel,
): Promise<CallOutcome> {
  let loading = modules.get(request.bundlePath);
  if (!loading) {
    // The host verified the copy, but this process may find another file under its path: one its
    // mount namespace bound when it was spawned, before the host wrote the verified bytes anew (a
    // `call`'s early start), or one swapped in or written since. It must be the very file the host
    // hashed, unchanged, or nothing is imported (security trial 128, HIGH 3).
    if (!hasIdentity(request.bundlePath, request.bundleIdentity)) return copyChanged(request);
    loading = import(pathToFileURL(request.bundlePath).href) as Promise<BundleModule>;
    modules.set(request.bundlePath, loading);
  }
  let module: BundleModule;
  try {
    module = await loading;
  } catch (error) {
    modules.delete(request.bundlePath);
    return bundleLoadFailure(error, request.toolName);
  }
  return executeDefinition(module, request, definitions, channel);
}

/** The failure of a call whose bundle copy is not intact in this process (the host refuses it with AL8012). */
function copyChanged(request: CallRequest): CallOutcome {
  return {
    ok: false,
    failureKind: "execution_error",
    error: `The bundle copy of tool '${request.toolName}' (${request.bundlePath}) is not the file the runtime verified: another file, a link, or one written since. Nothing of it was imported.`,
    copyChanged: true,
  };
}

main();
