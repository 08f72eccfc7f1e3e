/**
 * Starts the runtime's two isolation probes ahead of {@link openRuntime} (issue 14 item 3,
 * `call` start-up; docs/performance.md). Each probe launches a short-lived process in new
 * namespaces and runs once per process (`probeProcessIsolation`, `probeShellIsolation`), so a
 * host that starts them first — before it loads the runtime's modules and checks the artifact
 * — lets them run on another core meanwhile; `openRuntime` then awaits the same promises and
 * reports exactly what it would have (AL8031/AL8032 for the shell, AL8060/AL8061 for the
 * sandbox). This module imports only the probes, so it loads in a few milliseconds.
 *
 * [openRuntime]: ../runtime.ts
 */
import { useIsolationCache } from "./probe-cache.js";
import { probeProcessIsolation, takeKnownLaunchTools, type LaunchTools } from "./process-isolation.js";
import { probeShellIsolation } from "./shell-isolation.js";

/**
 * Starts both probes unless they already ran in this process, with the successes remembered
 * in `root`'s `.assemblyline/cache/` (`./probe-cache.ts`), as `openRuntime` of `root` does.
 * `shellIsolation` is the runtime option as the host will pass it (unchecked: `openRuntime`
 * validates it, AL8033); `"off"` skips the shell probe, as `openRuntime` does. `knownLaunch`
 * is the launchers a `call`'s early start found remembered (`EarlySandboxStart.launch`): the
 * process probe's result then, not looked for again. Returns at once; never throws.
 */
export function startIsolationProbes(root: string, shellIsolation: unknown, knownLaunch?: LaunchTools): void {
  useIsolationCache(root);
  if (knownLaunch !== undefined) takeKnownLaunchTools(knownLaunch);
  void probeProcessIsolation();
  if (shellIsolation !== "off") void probeShellIsolation();
}
