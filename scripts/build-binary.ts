// Builds dist/wms: one self-contained executable (a Node single executable
// application) that needs no Node.js, no node_modules and no files beside it.
//
//   npm run build:bin                 # linux-x64, on the pinned Node of devDependencies
//   npm run build:bin -- --arch arm64 # linux-arm64 edge boxes (base binary fetched from the npm registry)
//
// Steps: bundle (scripts/build.ts) → SEA blob with the SQLite addon as an asset →
// copy the pinned Node binary, strip it (129 MB → ~109 MB), inject the blob.

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE_ASSET, SERIAL_ASSET, SQLITE_ASSET } from '../src/core/native.ts';
import { ADDON, BUNDLE, DIST, ROOT, SERIAL_ADDON, bundle, replaceAtomically, serialPrebuild, sqlitePrebuild } from './build.ts';

const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const BINARY = path.join(DIST, 'wms');

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The Node binary the executable is made of: the one running this script, or the registry's arm64 build. */
function baseBinary(arch: string): string {
  if (arch === process.arch) return process.execPath;
  const version = process.version.slice(1);
  const cache = path.join(ROOT, '.tmp', `node-linux-${arch}-${version}`);
  const binary = path.join(cache, 'package', 'bin', 'node');
  if (!existsSync(binary)) {
    mkdirSync(cache, { recursive: true });
    execFileSync('npm', ['pack', `node-linux-${arch}@${version}`, '--silent'], { cwd: cache, stdio: 'inherit' });
    const tarball = readdirSync(cache).find((f) => f.endsWith('.tgz'))!;
    execFileSync('tar', ['xzf', tarball], { cwd: cache });
  }
  return binary;
}

export async function buildBinary(arch: NodeJS.Architecture = process.arch): Promise<string> {
  if (process.platform !== 'linux') throw new Error('the single binary is built for Linux edge boxes');
  await bundle();
  if (arch !== process.arch) {
    replaceAtomically(sqlitePrebuild('linux', arch), ADDON);
    replaceAtomically(serialPrebuild('linux', arch), SERIAL_ADDON);
  }

  const blob = path.join(DIST, 'sea-prep.blob');
  const seaConfig = path.join(DIST, 'sea-config.json');
  writeFileSync(
    seaConfig,
    JSON.stringify({
      main: BUNDLE,
      output: blob,
      disableExperimentalSEAWarning: true,
      // V8's code cache is specific to the CPU it was made on.
      useCodeCache: arch === process.arch,
      // The bundle once more as an asset: the log writer thread runs its text (src/core/log-store).
      assets: { [SQLITE_ASSET]: ADDON, [SERIAL_ASSET]: SERIAL_ADDON, [BUNDLE_ASSET]: BUNDLE },
    }),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });

  const out = arch === process.arch ? BINARY : `${BINARY}-linux-${arch}`;
  // Built under a temporary name and renamed at the end: a running dist/wms keeps its file.
  const partial = `${out}.${process.pid}.tmp`;
  copyFileSync(baseBinary(arch), partial);
  chmodSync(partial, 0o755);
  const strip = arch === process.arch ? 'strip' : `${arch === 'arm64' ? 'aarch64' : arch}-linux-gnu-strip`;
  try {
    execFileSync(strip, ['--strip-all', partial], { stdio: 'ignore' });
  } catch {
    console.warn(`${strip} not available: the executable stays unstripped (about 20 MB larger)`);
  }
  const { inject } = await import('postject');
  await inject(partial, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
  renameSync(partial, out);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = await buildBinary((argValue('--arch') ?? process.arch) as NodeJS.Architecture);
  console.log(`built ${path.relative(process.cwd(), out)} (${Math.round(statSync(out).size / 1e6)} MB)`);
}
