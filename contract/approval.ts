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
 * The side effect of a policy as given (`undefined`, `""` or a non-string mean "none given"),
 * with {@link DEFAULT_SIDE_EFFECT} in its place.
 */
export function sideEffectOrDefault(given: unknown): string {
  return typeof given === "string" && given !== "" ? given : DEFAULT_SIDE_EFFECT;
}
