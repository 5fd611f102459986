// Cold start and idle memory of bundles without a hub link configured: spawn → first
// 200 on /readyz, and the resident memory after the appliance has idled a while. The
// bundles take turns, each on a data directory of its own that its first start
// creates (migrations; reported apart), so both are measured on an existing site and
// the noise of a shared machine falls on each alike.

import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startAppliance } from '../bench-plc/appliance.ts';
import { firstReady, freePort } from '../bench-mixed/probe.ts';

export interface ColdStarts {
  bundle: string;
  bytes: number;
  /** The first start, on a fresh data directory (the schema made). */
  first: number;
  /** spawn → first 200 on /readyz, ms, in the order taken. */
  starts: number[];
  /** RSS after `idleMs` idle, MB. */
  idleRss: number[];
}

/** Resident memory in MB to a tenth (rssMb rounds to whole MB; the difference looked for is smaller). */
function rssMbFine(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

async function once(bundle: string, dataDir: string, idleMs: number): Promise<{ ms: number; rss: number }> {
  const port = await freePort();
  const since = performance.now();
  const ready = firstReady(port, since);
  const app = await startAppliance(dataDir, undefined, 0, bundle, port);
  try {
    const ms = await ready;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    return { ms, rss: rssMbFine(app.child.pid!) };
  } finally {
    await stop(app.child);
  }
}

export async function coldStarts(bundles: string[], times: number, idleMs: number, log: (line: string) => void): Promise<ColdStarts[]> {
  const dirs = bundles.map(() => mkdtempSync(path.join(tmpdir(), 'wms-bench-federation-cold-')));
  try {
    const results: ColdStarts[] = [];
    for (const [i, bundle] of bundles.entries()) {
      const first = await once(bundle, dirs[i]!, 0);
      results.push({ bundle, bytes: statSync(bundle).size, first: first.ms, starts: [], idleRss: [] });
    }
    for (let t = 0; t < times; t++) {
      for (const [i, bundle] of bundles.entries()) {
        const { ms, rss } = await once(bundle, dirs[i]!, idleMs);
        results[i]!.starts.push(ms);
        results[i]!.idleRss.push(rss);
        log(`cold start ${t + 1} ${path.relative(process.cwd(), bundle)}: ${ms.toFixed(0)} ms, idle RSS ${rss.toFixed(1)} MB`);
      }
    }
    return results;
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
