import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Where SQLite's native addon comes from.
// - Single binary (SEA): embedded as an asset, written once to
//   `<dataDir>/native/<sha256>.node` (a SEA has no files of its own) and loaded with
//   process.dlopen; the hash in the name keeps an upgrade from loading an old addon.
// - Bundle (`npm start`): next to the bundle, copied there by the build.
// - Sources (tests): better-sqlite3 finds its own prebuild.

declare const __WMS_BUNDLE__: boolean | undefined;

export const SQLITE_ASSET = 'better_sqlite3.node';

export function sqliteBinding(dataDir: string): unknown {
  const sea = loadSea();
  if (sea?.isSea()) {
    const bytes = Buffer.from(sea.getRawAsset(SQLITE_ASSET) as ArrayBuffer);
    const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
    const dir = path.join(dataDir, 'native');
    const file = path.join(dir, `${digest}.node`);
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, bytes, { mode: 0o755 });
      renameSync(partial, file);
    }
    const addon = { exports: {} as unknown };
    process.dlopen(addon, file);
    return addon.exports;
  }
  if (typeof __WMS_BUNDLE__ !== 'undefined' && __WMS_BUNDLE__) return path.join(__dirname, SQLITE_ASSET);
  return undefined;
}

interface Sea {
  isSea(): boolean;
  getRawAsset(key: string): ArrayBuffer | string;
}

function loadSea(): Sea | undefined {
  try {
    return process.getBuiltinModule('node:sea') as Sea;
  } catch {
    return undefined;
  }
}
