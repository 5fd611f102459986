import pkg from '../package.json' with { type: 'json' };

// What this executable is: the release (package.json) and, in a bundle or single
// binary, the commit and day it was built from (put in by scripts/build.ts), so a box
// in the field can say exactly which code it runs.

declare const __WMS_COMMIT__: string | undefined;
declare const __WMS_BUILT__: string | undefined;

/** The appliance's version, as released (package.json). */
export const VERSION: string = pkg.version;

/** The commit built from: short hash, `-dirty` when the tree had uncommitted changes; undefined in the sources. */
export const COMMIT: string | undefined = typeof __WMS_COMMIT__ !== 'undefined' ? __WMS_COMMIT__ : undefined;

/** The build's day (UTC, YYYY-MM-DD); undefined in the sources. */
const BUILT: string | undefined = typeof __WMS_BUILT__ !== 'undefined' ? __WMS_BUILT__ : undefined;

/** `wms --version`: `wms 0.1.0 (commit abc1234, built 2026-11-24)`. */
export function versionLine(): string {
  if (COMMIT === undefined) return `wms ${VERSION} (run from the sources)`;
  return `wms ${VERSION} (commit ${COMMIT}, built ${BUILT ?? 'unknown'})`;
}
