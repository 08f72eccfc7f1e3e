/**
 * Setup file of `npm test`'s projects (`vitest.config.ts`): takes the machine's
 * `NODE_EXTRA_CA_CERTS` out of the environment every process the tests start inherits.
 *
 * Node 20 reads and parses that certificate file at every process start, before any JavaScript
 * runs, whether or not the process makes a TLS connection: with the system bundle
 * (`/etc/ssl/certs/ca-certificates.crt`, 140 certificates) it is about 45 ms of CPU per process
 * (`node -e 0`: 0.12 s against 0.07 s; an up-to-date `compile`: 0.26 s against 0.21 s), and the
 * suite starts a few thousand Node processes (the CLI, its sandboxes, tsserver, the language
 * server, the bench). None of them reaches a TLS server the variable is for: the tests read
 * nothing outside the repository. The exceptions take it back explicitly: npm in the pre-commit
 * test, which may ask the registry ({@link machineExtraCaCerts}), and
 * `test/runtime/sandbox-tls.test.ts`, which sets its own certificate.
 *
 * The value is kept on `globalThis` (a worker that shares its modules across files runs this
 * file again before each of them, when the variable is already gone).
 */
const SAVED = Symbol.for("assembly-line.test.machine-extra-ca-certs");
const saved = globalThis as { [SAVED]?: { value: string | undefined } };
saved[SAVED] ??= { value: process.env.NODE_EXTRA_CA_CERTS };
delete process.env.NODE_EXTRA_CA_CERTS;

/** The machine's `NODE_EXTRA_CA_CERTS` as it was before this file took it out (`undefined` when it was not set). */
export function machineExtraCaCerts(): string | undefined {
  return saved[SAVED]?.value;
}
