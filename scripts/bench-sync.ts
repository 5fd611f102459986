// What one flush to disk costs on the disk the data directory is on: 4 KiB written, then
// fsync or fdatasync, 1,500 times, in a file reused from its start (as the write-ahead
// log is after a checkpoint) and in one that grows. Three rounds, ms per flush. The
// conveyor thread waits for such a flush at every commit (storage.flush: commit), or
// every answer waits for one on the flush thread (apart; docs/realtime.md).
//
//   npm run bench:sync [-- --dir /var/lib/wms]      (default: the system's temporary folder)

import { closeSync, fdatasyncSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathArg } from './args.ts';

const DIR = pathArg('--dir') ?? tmpdir();
const FLUSHES = 1500;
const PAGE = Buffer.alloc(4096, 7);
/** Pages of the reused file: a 4 MiB log. */
const PAGES = 1024;

type Kind = 'fsync' | 'fdatasync';
type Mode = 'reused' | 'growing';

function flushes(dir: string, kind: Kind, mode: Mode) {
  const file = path.join(dir, `${kind}-${mode}`);
  const fd = openSync(file, 'w+');
  try {
    if (mode === 'reused') {
      for (let i = 0; i < PAGES; i++) writeSync(fd, PAGE, 0, PAGE.length, i * PAGE.length);
      fsyncSync(fd);
    }
    const flush = kind === 'fsync' ? fsyncSync : fdatasyncSync;
    const ms: number[] = [];
    for (let i = 0; i < FLUSHES; i++) {
      writeSync(fd, PAGE, 0, PAGE.length, (mode === 'reused' ? i % PAGES : i) * PAGE.length);
      const started = performance.now();
      flush(fd);
      ms.push(performance.now() - started);
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
    return { mean: ms.reduce((a, b) => a + b, 0) / ms.length, p50: at(0.5), p99: at(0.99), max: at(1) };
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}

const dir = mkdtempSync(path.join(DIR, 'wms-bench-sync-'));
try {
  console.log(`${FLUSHES} flushes of 4 KiB each in ${DIR}; node ${process.version}\n`);
  console.log('| round | file | call | mean ms | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|---|---|');
  for (let round = 1; round <= 3; round++) {
    for (const mode of ['reused', 'growing'] as const) {
      for (const kind of ['fsync', 'fdatasync'] as const) {
        const r = flushes(dir, kind, mode);
        console.log(`| ${round} | ${mode} | ${kind} | ${r.mean.toFixed(3)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.max.toFixed(2)} |`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
