/**
 * One place that constructs ajv instances for a JSON Schema dialect (ajv and ajv-formats are
 * CommonJS; under NodeNext their classes are the modules' `default` export).
 */
import Ajv2019Module from "ajv/dist/2019.js";
import Ajv2020Module from "ajv/dist/2020.js";
import AjvDraft07Module, { type Options } from "ajv";
import addFormatsModule from "ajv-formats";

/** A JSON Schema dialect the toolchain understands. */
export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

/** The ajv class shared by all dialects (they differ only in vocabularies and meta-schema). */
export type AjvInstance = InstanceType<typeof Ajv2020Module.default>;

/** A new ajv instance for `dialect` with the standard formats (ajv-formats) added. */
export function createAjv(dialect: SchemaDialect, options: Options): AjvInstance {
  const instance =
    dialect === "draft-07"
      ? new AjvDraft07Module.default(options)
      : dialect === "2019-09"
        ? new Ajv2019Module.default(options)
        : new Ajv2020Module.default(options);
  addFormatsModule.default(instance);
  return instance as AjvInstance;
}
