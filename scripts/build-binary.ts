// Builds dist/wms: one self-contained executable (a Node single executable
// application) that needs no Node.js, no node_modules and no files beside it.
//
//   npm run build:bin                 # linux-x64, on the pinned Node of devDependencies
//   npm run build:bin -- --arch arm64 # linux-arm64 edge boxes (base binary fetched from the npm registry)
//
// Steps: bundle (scripts/build.ts) → SEA blob with the native addons as assets →
// copy the Node binary of the target, strip it (x64 127 MB → 109 MB), inject the blob.
// Stripping needs the target's binutils: `strip` for x64, `aarch64-linux-gnu-strip`
// (Debian `binutils-aarch64-linux-gnu`) for arm64; an x64 `strip` cannot read arm64.
// A build that goes well prints one line: what it built and its size.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { OPCUA_DRIVER_ASSET } from '../plc/signals/opcua/load-bundled.ts';
import { OPCUA_SIMULATOR_ASSET } from '../plc/simulator/signals/server.ts';
import { SERIAL_ASSET, SQLITE_ASSET } from '../src/core/native.ts';
import { CONVEYOR_NODE_OPTIONS } from '../src/core/young-generation.ts';
import { BUNDLE_ASSET } from '../src/threads/worker.ts';
import { textArg } from './args.ts';
import { ADDON, BUNDLE, DIST, NATS_CLIENT, OPCUA_DRIVER, OPCUA_SIMULATOR, ROOT, SERIAL_ADDON, bundle, serialPrebuild, sqlitePrebuild } from './build.ts';

const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const BINARY = path.join(DIST, 'wms');

/** The Node binary the executable is made of: the one running this script, or the registry's build for `arch`. */
function baseBinary(arch: string): string {
  if (arch === process.arch) return process.execPath;
  const version = process.version.slice(1);
  const cache = path.join(ROOT, '.tmp', `node-linux-${arch}-${version}`);
  const binary = path.join(cache, 'package', 'bin', 'node');
  if (!existsSync(binary)) {
    // Unpacked beside the cache and renamed into place: an interrupted fetch leaves no half binary.
    const partial = `${cache}.${process.pid}.tmp`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    execFileSync('npm', ['pack', `node-linux-${arch}@${version}`, '--silent'], { cwd: partial, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(partial).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack node-linux-${arch}@${version} left no tarball`);
    execFileSync('tar', ['xzf', tarball], { cwd: partial });
    rmSync(cache, { recursive: true, force: true });
    renameSync(partial, cache);
  }
  return binary;
}

/** The strip that reads the target's ELF files: the machine's own, or the GNU cross binutils (Debian package named after it). */
function stripFor(arch: string): { command: string; debian: string } {
  if (arch === process.arch) return { command: 'strip', debian: 'binutils' };
  const triple = `${{ arm64: 'aarch64', x64: 'x86_64' }[arch as string] ?? arch}-linux-gnu`;
  return { command: `${triple}-strip`, debian: `binutils-${triple}` };
}

/**
 * postject's ELF library (LIEF) rebuilds the PT_NOTE segment, where the blob goes in as
 * a note, and makes a section for each note named after its type: `.note.100` for the
 * GNU build-attribute notes (type 0x100) of the Node binary, `.note` for the blob. Those
 * names are not in the section-name table, so it prints "warning: Can't find string
 * offset for section name '.note.100'" once per section (12 for Node 24) and leaves
 * the sections nameless. Nothing reads section names at run time: the loader goes by
 * the program headers and Node finds its blob in the PT_NOTE segment (the tests run
 * every build). Exactly these lines are dropped; any other line, and any failure, shows.
 */
const KNOWN_LIEF_WARNING = /^warning: Can't find string offset for section name '\.note(\.\d+)?'$/;

/** Injects the SEA blob into the copied Node binary (postject prints through console.warn). */
async function injectBlob(binary: string, blob: Buffer): Promise<void> {
  const { inject } = await import('postject');
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!(args.length === 1 && typeof args[0] === 'string' && KNOWN_LIEF_WARNING.test(args[0]))) warn(...args);
  };
  try {
    await inject(binary, 'NODE_SEA_BLOB', blob, { sentinelFuse: SEA_FUSE });
  } finally {
    console.warn = warn;
  }
}

async function buildBinary(arch: NodeJS.Architecture = process.arch): Promise<string> {
  if (process.platform !== 'linux') throw new Error('the single binary is built for Linux edge boxes');
  await bundle();
  // Another architecture's addons go into the blob straight from the packages'
  // prebuilds: dist/*.node stay this machine's, for the bundle that runs from dist.
  const sqliteAddon = arch === process.arch ? ADDON : sqlitePrebuild('linux', arch);
  const serialAddon = arch === process.arch ? SERIAL_ADDON : serialPrebuild('linux', arch);
  for (const addon of [sqliteAddon, serialAddon]) {
    if (!existsSync(addon)) throw new Error(`no prebuilt addon for linux-${arch}: ${addon}`);
  }

  // Named by architecture and process: two builds at once do not share a blob.
  const blob = path.join(DIST, `sea-prep-${arch}.${process.pid}.blob`);
  const seaConfig = path.join(DIST, `sea-config-${arch}.${process.pid}.json`);
  // The bundle once more, for the HTTP thread (src/threads/worker.ts), brotli-compressed:
  // 3.5 MB of text would be 0.8 MB.
  const bundleText = path.join(DIST, `wms.cjs.${arch}.${process.pid}.br`);
  writeFileSync(bundleText, brotliCompressSync(readFileSync(BUNDLE), { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9 } }));
  writeFileSync(
    seaConfig,
    JSON.stringify({
      main: BUNDLE,
      output: blob,
      disableExperimentalSEAWarning: true,
      // V8's code cache is specific to the CPU it was made on.
      useCodeCache: arch === process.arch,
      // The conveyor thread's young generation (src/core/young-generation.ts): V8 sizes the main thread's heap before any code runs.
      execArgv: CONVEYOR_NODE_OPTIONS,
      // The OPC UA driver and the NATS client are files of their own (src/core/apart.ts): loaded
      // only by a site that has an OPC UA channel or a hub link.
      assets: {
        [SQLITE_ASSET]: sqliteAddon,
        [SERIAL_ASSET]: serialAddon,
        [OPCUA_DRIVER_ASSET]: OPCUA_DRIVER,
        [path.basename(NATS_CLIENT)]: NATS_CLIENT,
        [OPCUA_SIMULATOR_ASSET]: OPCUA_SIMULATOR,
        // The HTTP thread runs the bundle's text (src/threads/worker.ts): a SEA has no file to start it from.
        [BUNDLE_ASSET]: bundleText,
      },
    }),
  );
  // It reports the blob it wrote (a temporary file) on stderr: that line is dropped, any other shows.
  const sea = spawnSync(process.execPath, ['--experimental-sea-config', seaConfig], { encoding: 'utf8' });
  const said = `${sea.stdout}${sea.stderr}`.split('\n').filter((line) => line !== '' && !line.startsWith('Wrote single executable preparation blob to '));
  if (said.length > 0) console.warn(said.join('\n'));
  if (sea.status !== 0) throw new Error(`node --experimental-sea-config failed (${sea.error?.message ?? `exit code ${sea.status}`})`);

  const out = arch === process.arch ? BINARY : `${BINARY}-linux-${arch}`;
  // Built under a temporary name and renamed at the end: a running dist/wms keeps its file.
  const partial = `${out}.${process.pid}.tmp`;
  copyFileSync(baseBinary(arch), partial);
  chmodSync(partial, 0o755);
  const strip = stripFor(arch);
  try {
    execFileSync(strip.command, ['--strip-all', partial], { stdio: ['ignore', 'inherit', 'inherit'] });
  } catch (err) {
    // Missing binutils leave a larger executable that works; a strip that ran and failed is a broken build.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`${strip.command} --strip-all failed on the ${arch} Node binary: ${(err as Error).message}`);
    console.warn(`${strip.command} not available (Debian ${strip.debian}): the executable stays unstripped (about 20 MB larger)`);
  }
  await injectBlob(partial, readFileSync(blob));
  rmSync(blob, { force: true });
  rmSync(seaConfig, { force: true });
  rmSync(bundleText, { force: true });
  renameSync(partial, out);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = await buildBinary((textArg('--arch') ?? process.arch) as NodeJS.Architecture);
  console.log(`built ${path.relative(process.cwd(), out)} (${Math.round(statSync(out).size / 1e6)} MB)`);
}
