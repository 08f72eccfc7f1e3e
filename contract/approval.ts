/**
 * The approval policy's defaults, shared by the compiler (descriptors, `defineTool` literals),
 * the lock and the runtime (host approval rules, the snapshot).
 */

/**
 * The side-effect class a policy gets when it names none (seed, "Tool implementation":
 * `approvalRequired(reason, sideEffect = "external")`; "Approval Gates"). An external side effect
 * is one the runtime cannot undo or deduplicate, so it is the safe default.
 */
export const DEFAULT_SIDE_EFFECT = "external";

/**
 * The side effects the contract names (seed "Approval Gates"): `"external"` (the default) and
 * `"idempotent"`. Any other string is kept as a custom label for the host's policy; the
 * compiler warns when one is a near miss of these (AL4032).
 */
export const BUILT_IN_SIDE_EFFECTS: readonly string[] = [DEFAULT_SIDE_EFFECT, "idempotent"];

/**
 * The side effect of a policy as given (`undefined`, `""` or a non-string mean "none given"),
 * with {@link DEFAULT_SIDE_EFFECT} in its place.
 */
export function sideEffectOrDefault(given: unknown): string {
  return typeof given === "string" && given !== "" ? given : DEFAULT_SIDE_EFFECT;
}
