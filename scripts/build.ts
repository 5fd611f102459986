// Bundles the appliance into one CommonJS file, dist/wms.cjs, with SQL migrations
// inlined as text and SQLite's native addon copied beside it. `npm start` runs this
// bundle; `npm run build:bin` wraps the same bundle into the single executable.
//
//   node scripts/build.ts [--quiet]

import { copyFileSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
export const BUNDLE = path.join(DIST, 'wms.cjs');
export const ADDON = path.join(DIST, 'better_sqlite3.node');

/** The prebuilt SQLite addon shipped inside the better-sqlite3 package for this platform. */
export function sqlitePrebuild(platform = process.platform, arch = process.arch): string {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('better-sqlite3/package.json'));
  return path.join(pkg, 'prebuilds', `${platform}-${arch}.node`);
}

export async function bundle(): Promise<void> {
  mkdirSync(DIST, { recursive: true });
  const partial = `${BUNDLE}.${process.pid}.tmp`;
  await build({
    entryPoints: [path.join(ROOT, 'src/entry.ts')],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    loader: { '.sql': 'text' },
    define: { __WMS_BUNDLE__: 'true' },
    // pino's transport worker and optional pretty printer are never used.
    external: ['pino-pretty'],
    sourcemap: 'inline',
    legalComments: 'none',
    logLevel: 'warning',
  });
  renameSync(partial, BUNDLE);
  replaceAtomically(sqlitePrebuild(), ADDON);
}

/**
 * Copies by writing a new file and renaming it over the old one. A running
 * appliance has the old addon mapped into memory; writing into that same file would
 * change its code under it and crash it.
 */
export function replaceAtomically(source: string, target: string): void {
  const partial = `${target}.${process.pid}.tmp`;
  copyFileSync(source, partial);
  renameSync(partial, target);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await bundle();
  if (!process.argv.includes('--quiet')) console.log(`built ${path.relative(process.cwd(), BUNDLE)}`);
}
