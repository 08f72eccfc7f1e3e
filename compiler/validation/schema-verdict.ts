/**
 * What ajv says about one schema, as plain data that crosses the worker thread
 * (`schema-worker.ts`) and the analysis cache.
 */

/** One meta-schema violation, as much of ajv's `ErrorObject` as the diagnostics use. */
export interface MetaSchemaError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message: string | undefined;
  /** `params.allowedValues` of an `enum` error. */
  readonly allowedValues: readonly unknown[] | undefined;
}

/**
 * What ajv says about a schema: its meta-schema violations (then it is not compiled), or
 * `compileError`, `null` when the strict-mode compile succeeded, else the message ajv threw.
 */
export interface SchemaVerdict {
  readonly metaErrors: readonly MetaSchemaError[] | null;
  readonly compileError: string | null;
}
