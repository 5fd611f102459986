import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundle } from '../../scripts/build.ts';

// Once per run, before the test files: the bundle the CLI and start-up tests run, and
// the folder every temporary file of the run goes to.

/** tmpfs with at least this much room takes the run's temporary files. */
const TMPFS = '/dev/shm';
const TMPFS_FREE_BYTES = 4 * 1024 ** 3;

export default async function setup(): Promise<() => void> {
  const root = runTempRoot();
  // Test files, the appliances they start, the processes they spawn and Chromium all
  // take their temporary folders from TMPDIR (os.tmpdir()), inherited by the workers.
  process.env.TMPDIR = root;
  await bundle();
  return () => rmSync(root, { recursive: true, force: true });
}

/**
 * A folder of this run alone. On tmpfs (RAM) where the box has room there: the suite's
 * hundreds of SQLite files commit with synchronous=FULL, and an fsync to tmpfs costs
 * nothing (a quiet 2-vCPU box: 339 s on disk, 298 s on tmpfs). What the tests check does not
 * change: each file is still a real SQLite database on a real file system, and a killed
 * process loses nothing either way. Durability on the box's disk is what the crash and
 * power-cut runs measure (RELIABILITY.md). `WMS_TEST_TMPDIR` names another parent.
 */
function runTempRoot(): string {
  const parent = process.env.WMS_TEST_TMPDIR ?? (hasRoom(TMPFS) ? TMPFS : tmpdir());
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(path.join(parent, 'wms-test-run-'));
}

function hasRoom(dir: string): boolean {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize >= TMPFS_FREE_BYTES;
  } catch {
    return false;
  }
}
