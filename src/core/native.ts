import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// Where the native addons (SQLite; the serial line binding) come from.
// - Single binary (SEA): embedded as assets, written once to
//   `<dataDir>/native/<sha256>.node` (a SEA has no files of its own) and loaded with
//   process.dlopen; the hash in the name keeps an upgrade from loading an old addon.
// - Bundle (`npm start`): next to the bundle, copied there by the build.
// - Sources (tests): the packages find their own prebuilds.

declare const __WMS_BUNDLE__: boolean | undefined;

export const SQLITE_ASSET = 'better_sqlite3.node';
export const SERIAL_ASSET = 'serialport.node';

const bundled = () => typeof __WMS_BUNDLE__ !== 'undefined' && __WMS_BUNDLE__;

/** Where unpacked addons go; set at start from the data directory. */
let nativeDir: string | undefined;

export function setNativeDir(dataDir: string): void {
  nativeDir = path.join(dataDir, 'native');
}

/** An embedded addon written to the native directory once (SEA only); its file. */
function unpack(sea: Sea, asset: string): string {
  if (!nativeDir) throw new Error('the native addon directory is not set (setNativeDir)');
  const bytes = Buffer.from(sea.getRawAsset(asset) as ArrayBuffer);
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  const file = path.join(nativeDir, `${digest}.node`);
  if (!existsSync(file)) {
    mkdirSync(nativeDir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, bytes, { mode: 0o755 });
    renameSync(partial, file);
  }
  return file;
}

/** The loaded exports of an embedded addon (SEA only). */
function loadEmbedded(sea: Sea, asset: string): unknown {
  const addon = { exports: {} as unknown };
  process.dlopen(addon, unpack(sea, asset));
  return addon.exports;
}

/**
 * The SQLite addon as a file, for a worker thread's own connection (it loads the addon
 * itself); undefined in the sources, where better-sqlite3 finds its prebuild.
 */
export function sqliteBindingFile(dataDir: string): string | undefined {
  setNativeDir(dataDir);
  const sea = loadSea();
  if (sea?.isSea()) return unpack(sea, SQLITE_ASSET);
  if (bundled()) return path.join(__dirname, SQLITE_ASSET);
  return undefined;
}

/** better-sqlite3's `nativeBinding` option: the loaded addon, a path, or undefined for its own lookup. */
export function sqliteBinding(dataDir: string): unknown {
  setNativeDir(dataDir);
  const sea = loadSea();
  if (sea?.isSea()) return loadEmbedded(sea, SQLITE_ASSET);
  if (bundled()) return path.join(__dirname, SQLITE_ASSET);
  return undefined;
}

/**
 * The serial line binding, for `@serialport/bindings-cpp` (its `node-gyp-build` call is
 * routed here by the bundler, see scripts/build.ts). Loaded only when a serial channel
 * is opened: TCP-only sites never load it.
 */
export function serialBinding(): unknown {
  const sea = loadSea();
  if (sea?.isSea()) return loadEmbedded(sea, SERIAL_ASSET);
  return createRequire(__filename)(path.join(__dirname, SERIAL_ASSET));
}

interface Sea {
  isSea(): boolean;
  getRawAsset(key: string): ArrayBuffer | string;
  getAsset(key: string, encoding: string): string;
}

function loadSea(): Sea | undefined {
  try {
    return process.getBuiltinModule('node:sea') as Sea;
  } catch {
    return undefined;
  }
}
