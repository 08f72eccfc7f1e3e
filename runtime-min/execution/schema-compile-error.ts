/**
 * The error of a locked `inputSchema` that cannot be compiled (`./validate-input.ts`). Its own
 * module, so the call pipeline can recognise it without loading ajv (issue 14 item 3: ajv loads
 * with the first input check, while the sandbox process of the call starts).
 */

/** Thrown by `InputValidator.validate` when the locked schema itself cannot be compiled. */
export class SchemaCompileError extends Error {}
