/**
 * The words of a failed call's `error` for something an authored tool threw (helper-78 D3,
 * D8.6): its message, the messages of its `cause` chain, and, for a refusal of Node's
 * permission model, what was refused and where the rule is documented.
 *
 * Shared by the sandbox child and `direct` execution (through `./execute-definition.ts`), so it
 * imports nothing. Only messages are shown, never a cause's stack (the stack of the thrown error
 * itself goes to the host's event log only).
 */

/** Causes shown after the message, at most: `fetch` wraps its real reason one or two levels down. */
export const MAX_CAUSES = 3;

/** Characters of one cause's words, at most (the thrown error's own message is kept whole, as before). */
export const MAX_CAUSE_CHARS = 500;

/** Where the sandbox's file-system and process rules are documented, named in a refusal's message. */
const POLICY_DOC = "\"What a sandboxed tool may use\" in docs/host-policy.md";

/**
 * The message of anything thrown, followed by the messages of its `cause` chain when there is
 * one: `fetch failed (cause: self-signed certificate in certificate chain)`. A cause whose words
 * the message already holds (`new Error(\`x: ${e.message}\`, { cause: e })`) is not repeated.
 * Node's `ERR_ACCESS_DENIED` is explained at every level ({@link describeOne}).
 *
 * @example
 * describeThrown(new TypeError("fetch failed", { cause: new Error("self-signed certificate in certificate chain") }));
 * // → "fetch failed (cause: self-signed certificate in certificate chain)"
 */
export function describeThrown(error: unknown): string {
  try {
    return describeChain(error);
  } catch {
    // A thrown object whose getters throw (`cause`, `code`, a Proxy): its message alone, as
    // before; fixed words when reading the message throws too, never an exception out of here.
    try {
      return messageText(error);
    } catch {
      return "a thrown value whose message could not be read";
    }
  }
}

function describeChain(error: unknown): string {
  const message = describeOne(error);
  const causes: string[] = [];
  const seen = new Set<unknown>([error]);
  let shown = message;
  let current = causeOf(error);
  while (current !== undefined && causes.length < MAX_CAUSES && !seen.has(current)) {
    seen.add(current);
    const words = bounded(describeOne(current));
    if (words !== "" && !shown.includes(words)) {
      causes.push(words);
      shown += `\n${words}`;
    }
    current = causeOf(current);
  }
  return causes.length === 0 ? message : `${message} (cause: ${causes.join("; caused by: ")})`;
}

/**
 * The words of one thrown value, without its causes: a refusal of Node's permission model
 * (`ERR_ACCESS_DENIED`, whose message "Access to this API has been restricted" says neither what
 * nor where) names the permission and the path and points at the host policy; an error with no
 * message (an `AggregateError` of `fetch`'s connection attempts) is named by its errors or its
 * code; anything else is {@link messageText}.
 */
export function describeOne(error: unknown): string {
  const fields = error as { code?: unknown; permission?: unknown; resource?: unknown; errors?: unknown } | null;
  if (typeof fields === "object" && fields !== null && fields.code === "ERR_ACCESS_DENIED") return accessDenied(messageText(error), fields.permission, fields.resource);
  const text = messageText(error);
  if (text !== "" || typeof fields !== "object" || fields === null) return text;
  if (Array.isArray(fields.errors) && fields.errors.length > 0) {
    const inner = [...new Set(fields.errors.map((inner: unknown) => messageText(inner)).filter((inner) => inner !== ""))];
    if (inner.length > 0) return inner.join("; ");
  }
  return typeof fields.code === "string" ? fields.code : "";
}

/** The message of anything thrown: `Error.message`, a string as is, anything else as JSON. */
export function messageText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** What each permission of Node's permission model refuses, and what a tool may do instead. */
const REFUSED: Readonly<Record<string, { readonly what: string; readonly instead: string }>> = {
  FileSystemWrite: { what: "writing", instead: "a sandboxed tool may write only in its run's workspace (ctx.getSandbox().workspace, its current folder)" },
  FileSystemRead: { what: "reading", instead: "a sandboxed tool may read only its own bundle and its run's workspace (ctx.getSandbox().workspace)" },
  ChildProcess: { what: "starting a child process", instead: "run commands with ctx.getSandbox().exec(...)" },
  WorkerThreads: { what: "starting a worker thread", instead: "a sandboxed tool runs on one thread" },
};

function accessDenied(message: string, permission: unknown, resource: unknown): string {
  const known = typeof permission === "string" ? REFUSED[permission] : undefined;
  const name = typeof permission === "string" && permission !== "" ? permission : "an API";
  const where = typeof resource === "string" && resource !== "" ? ` '${resource.length > 200 ? `${resource.slice(0, 200)}…` : resource}'` : "";
  const refused = known ? `${known.what}${where} (${name})` : `${name}${where}`;
  const advice = known ? `${capitalize(known.instead)}; see ${POLICY_DOC}` : `See ${POLICY_DOC}`;
  return `${message}: the host's sandbox policy refused ${refused}. ${advice}.`;
}

function causeOf(error: unknown): unknown {
  if (typeof error !== "object" || error === null || !("cause" in error)) return undefined;
  return (error as { cause?: unknown }).cause ?? undefined;
}

function bounded(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_CAUSE_CHARS ? `${line.slice(0, MAX_CAUSE_CHARS)}…` : line;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
