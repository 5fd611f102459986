// The raw commit rate of the disk under the appliance's own settings, its own process:
// better-sqlite3 on a file in the given directory, WAL, synchronous=FULL, one INSERT
// per transaction (each COMMIT waits for its fsync), one after the other for the given
// seconds. What a durable create over HTTP is compared with.
//
//   node scripts/bench-mixed/raw-commit.ts <dir> <seconds>   → prints one JSON line

import { rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

const [dir, seconds] = [process.argv[2]!, Number(process.argv[3])];
const file = path.join(dir, 'raw-commit.sqlite');
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, location_id TEXT NOT NULL UNIQUE, create_dt TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO rows (location_id, create_dt) VALUES (?, ?)');
const latencies: number[] = [];
const start = performance.now();
const end = start + seconds * 1000;
for (let n = 0; performance.now() < end; n++) {
  const at = performance.now();
  insert.run(`RAW/${Math.floor(n / 10000)}/${n % 10000}/${process.pid}/${start}`, new Date().toISOString());
  latencies.push(performance.now() - at);
}
const elapsed = (performance.now() - start) / 1000;
db.close();
for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
latencies.sort((a, b) => a - b);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
console.log(JSON.stringify({ commits: latencies.length, rate: latencies.length / elapsed, p50ms: q(0.5), p99ms: q(0.99) }));
