/**
 * The environment every bench script measures in (docs/benchmarks.md, "The environment"):
 * imported first by bench/run.mjs and by each script, so that the script and every process it
 * starts — the toolchain's and its baselines' alike (`node -e 0`, the parse floor, the MCP SDK) —
 * run without the variables below.
 *
 * `NODE_EXTRA_CA_CERTS` makes every Node process read and parse the named certificates together
 * with Node's whole root store before it runs any JavaScript: about 35 ms on the bench machine,
 * where `node -e 0` takes 59 ms with it and 23 ms without (4 December). Paid alike by both sides
 * of every ratio, it pulled them all towards 1, and it is set on few machines (proxies that
 * re-sign TLS). None of the measured commands opens a TLS connection.
 */

/** The variables removed (those that were set), in this order. */
export const removedVariables = ["NODE_EXTRA_CA_CERTS"].filter((name) => process.env[name] !== undefined);
for (const name of removedVariables) delete process.env[name];
