/**
 * Packaging (DESIGN §6, issue 4 item 1): bundle every tool definition of a compile with one
 * esbuild build, then write the artifact directory atomically.
 *
 * @example
 * const packaged = await bundleTools({ root, tools });          // tools: PackagingTool[]
 * if (!hasErrors(packaged.diagnostics)) {
 *   const { bundle, integrity } = packaged.toolBundles.get(toolBundleKey(".", "example", "echo"))!;
 *   // … record `integrity` in plugins.lock and the manifest, then:
 *   await writeArtifact(path.join(root, DEFAULT_ARTIFACT_DIR), packaged.bundles, manifest);
 * }
 */
export {
  bundleTools,
  buildOptions,
  type BuildFunction,
  type BundleToolsOptions,
  type PackagingInput,
  type PackagingResult,
  type ToolBundle,
} from "./bundle-tools.js";
export {
  BUNDLE_EXTENSION,
  describeTool,
  planBundles,
  surfaceDirectory,
  toolBundleKey,
  type BundlePlan,
  type PackagingTool,
  type PlannedBundle,
} from "./plan-bundles.js";
export { writeArtifact, serializeManifest, type ArtifactFileContents } from "./write-artifact.js";
export { bundleIntegrity } from "./integrity.js";
export {
  BINARY_EXTENSIONS,
  DATA_URL_MIME_TYPES,
  TEXT_EXTENSIONS,
  assetBytes,
  assetKindOf,
  type AssetKind,
  type ImportForm,
} from "./asset-rules.js";
export { AUTHORING_CORE_SPECIFIER, BUNDLED_CORE_NAME, createCorePathRewriter, locateAuthoringCore, type AuthoringCoreModule } from "./authoring-core.js";
