import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from './log.ts';

// The data directory holds the database, its backups and the config file: every
// password hash, the token signing key, perhaps the first admin's password. Nobody but
// the appliance's own user has reason to read them, so the directory is 0700 and what
// the appliance creates in it is 0600 — SQLite creates its files (database, WAL,
// shared memory, backups) with the process's umask, which is therefore set to 077.
// Files an older build left readable are tightened at start.

/** Directories whose files are tightened at start: the data directory and its backups. */
const TIGHTENED = ['.', 'backups'];

export function prepareDataDir(dataDir: string, log: Logger): void {
  try {
    process.umask(0o077);
  } catch {
    // Worker threads may not change the umask; the main thread does before any file exists.
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tightened: string[] = [];
  for (const sub of TIGHTENED) {
    const dir = path.join(dataDir, sub);
    if (!existsSync(dir)) continue;
    tighten(dir, 0o700, tightened);
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isFile()) tighten(file, 0o600, tightened);
    }
  }
  if (tightened.length > 0) log.info({ files: tightened }, "data directory: made readable by the appliance's user only");
}

function tighten(file: string, mode: number, tightened: string[]): void {
  const current = statSync(file).mode & 0o777;
  if ((current & 0o077) === 0) return;
  try {
    chmodSync(file, current & mode);
    tightened.push(file);
  } catch {
    // Not ours (an installer's file): left as it is; the directory's mode still guards it.
  }
}
